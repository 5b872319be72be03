"""Sentence templates for synthetic abstracts, one list per rhetorical move of a real abstract.

Slots (``{name}``, replaced by :mod:`corpus`; other braces are literal LaTeX):
``{np}``/``{nps}`` a noun phrase (singular/plural), ``{n}``/``{ns}``
a noun, ``{a}`` an adjective, ``{v}``/``{vs}``/``{ving}``/``{ved}`` a verb, ``{field}`` the research
area, ``{M}`` the method's short name, ``{Mintro}`` its introduction (long name and short name),
``{base}`` a baseline's name, ``{math}`` inline LaTeX, ``{pct}``/``{num}``/``{x}`` numbers,
``{emph}`` a Markdown- or LaTeX-emphasised phrase, ``{url}`` a link.
"""

from __future__ import annotations

CONTEXT = [
    "{field} has become a central paradigm for {ving} {nps} in {a} settings.",
    "Recent advances in {field} have enabled {a} {nps}, yet {nps} remain poorly understood.",
    "{nps} are widely used to {v} {np}, with applications ranging from {np} to {np}.",
    "A fundamental problem in {field} is how to {v} {np} under {a} {np}.",
    "Learning {a} {nps} from {a} data is a long-standing challenge in {field}.",
    "{np} is a key ingredient of modern {field}, offering {a} {np} for {nps}.",
    "Many real-world {nps} require {ving} {np} while satisfying strict {np} constraints.",
    "The success of {nps} in {field} hinges on {a} {np} and reliable {np}.",
    "In {field}, {nps} are typically trained to {v} {np} from {a} {nps}.",
    "{a} {nps} have emerged as a promising approach to {field}.",
]

GAP = [
    "However, existing {nps} rely heavily on {a} {np}, which limits their {n}.",
    "Despite this progress, current methods suffer from {a} {np} and {a} {np}.",
    "Unfortunately, most prior work ignores the {n} of {np}, leading to {a} {nps}.",
    "Yet these approaches often fail when {np} is {a}, and their {n} degrades under {np}.",
    "This limitation becomes critical in {a} regimes, where {nps} are {a} and {np} is scarce.",
    "Existing {nps} either {v} {np} or {v} {np}, but rarely both.",
    "Moreover, {a} {nps} incur {math} cost, making them impractical for {a} {nps}.",
    "A key obstacle is that {np} and {np} are coupled through {a} {np}.",
    "As a result, practitioners must tune {np} by hand, which is costly and {a}.",
]

PROPOSAL = [
    "In this work, we propose {Mintro}, a {a} framework that {vs} {np} by {ving} {np}.",
    "We introduce {Mintro}, a {a} method for {ving} {nps} in {field}.",
    "To address this, we present {Mintro}, which {vs} {np} through {a} {np}.",
    "This paper develops {Mintro}, a {a} and {a} approach to {np}.",
    "We propose {Mintro}: a {a} {n} that {vs} {np} while {ving} {np}.",
    "Our method, {Mintro}, reformulates {np} as {a} {np} and {vs} it with {a} {np}.",
]

DETAIL = [
    "{M} {vs} {a} {np} to {v} {np}, and {vs} the resulting {np} with {a} {np}.",
    "Specifically, {M} decomposes {np} into {a} {nps} and learns {a} {np} for each.",
    "The key idea is to {v} {np} in {a} {n} space, where {nps} become {a}.",
    "We further introduce a {a} {n} that {vs} {np} without {ving} {np}.",
    "Central to {M} is {emph}, which {vs} {np} at {math} cost.",
    "{M} maintains a {a} {n} over {nps} and updates it with {a} {nps}.",
    "Unlike {base}, {M} does not require {a} {np} or access to {np}.",
    "Our design combines {a} {np} with {a} {np}, yielding {emph}.",
    "A {a} {n} then selects {nps} according to their {n}, with {math} controlling the {n}.",
    "To {v} {np}, we {v} {np} via {a} {np} and {a} {np}.",
    "This yields a {a} objective whose {n} scales as {math} in the {n}.",
    "We instantiate {M} with {a} {nps} and a {a} {n} of {nps}.",
]

THEORY = [
    "We prove that {M} converges to a {a} {n} at rate {math} under {a} assumptions.",
    "Theoretically, we establish {a} {nps} on the {n} of {np}, which are tight up to {math} factors.",
    "Our analysis shows that {np} is {a} if and only if {np} is {a}.",
    "We derive {a} {nps} that hold for any {n} with probability at least {math}.",
    "Under {a} conditions, the estimator is {a} and achieves {math} {n}.",
]

EXPERIMENT = [
    "Extensive experiments on {num} benchmarks show that {M} outperforms {base} by {pct} in {n}.",
    "Across {num} {a} tasks, {M} achieves {a} {n} while reducing {np} by {x}.",
    "Empirically, {M} matches {a} {nps} with {pct} fewer {ns} and {x} faster {n}.",
    "On {a} {nps}, our method improves {n} by {pct} over the strongest {n}.",
    "Experiments on {a} and {a} {nps} demonstrate consistent gains over {base} and {base}.",
    "Results on {num} datasets confirm that {M} scales to {num} {ns} with {a} {n}.",
]

CLOSING = [
    "These results suggest that {np} is a {a} direction for {a} {field}.",
    "Our findings highlight the importance of {np} for {a} {nps}.",
    "Overall, {M} offers a {a} and {a} alternative to {a} {nps}.",
    "We hope this work encourages further study of {a} {nps} in {field}.",
]

CODE = [
    "Code is available at {url}.",
    "Our code and data are publicly available at {url}.",
    "The implementation is released at \\url{{url}}.",
    "Project page: {url}.",
]

MATH = [
    "$O(n^2)$",
    "$O(n \\log n)$",
    "$\\mathcal{O}(\\sqrt{T})$",
    "$\\tilde{O}(d\\sqrt{T})$",
    "$1-\\alpha$",
    "$\\epsilon$",
    "$O(1/\\epsilon^2)$",
    "$\\gamma < 1$",
    "$\\ell_2$",
    "$k \\ll n$",
    "$\\beta > 0$",
    "$\\lambda$",
    "$O(d^3)$",
    "$\\Theta(\\log T)$",
]

EMPHASIS = [
    "**{a} {n}**",
    "*{a} {n}*",
    "\\emph{{a} {n}}",
    "\\textit{{n} {n}}",
    "``{a} {n}''",
    "$\\alpha$-{n}",
    "{a} {n} — a {a} {n} —",
]

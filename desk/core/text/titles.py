"""A paper has no title in the input: find the method's short name and derive a scannable title."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from functools import lru_cache

from desk.core.text.cues import ADVERBS as _ADVERBS
from desk.core.text.cues import STRONG_VERBS as _STRONG_VERBS
from desk.core.text.cues import SUBJECT as _SUBJECT
from desk.core.text.cues import CueScan
from desk.core.text.markup import one_space

log = logging.getLogger(__name__)

TITLE_MAX = 120

# Field-wide acronyms an abstract uses but never introduces as its own method.
_GENERIC_WORDS = """
    AI ML NLP CV RL DRL MARL MBRL IRL LLM LM VLM MLLM VLA GNN CNN RNN LSTM MLP GAN VAE SSM MOE FFN
    MDP POMDP SOTA GPU TPU CPU API SGD ADAM ADAMW PPO DPO GRPO DAPO TRPO SAC TD3 DQN SFT RLHF RLVR
    KL OOD IID RAG KV BERT GPT VIT LORA ODE SDE PDE MCMC MCTS SMC OPE DR EEG FM PSG UDA CMH UMM CDNN
    TTT GLA AIL BC CP CRC FDR GBI SBI SNIS EMA MSE SVD PCA RKHS RELU GLU SNN FPGA ICU DNA RNA RCT AMCE
    PL PAC BIBO LTI LPV NTK CVAR GDRO IMAGENET PYTORCH GITHUB DEEPMIND MUJOCO MATH GSM8K AIME CIFAR
    MNIST SVG EOS USA UK EU SUTVA MPJPE QWEN LLAMA NVIDIA HTTP HTTPS URL PDF ID IO OS SQL JSON XML
    HTML CSS UI UX PHD AUC ROC MAP MRR NDCG BLEU ROUGE FID IS LPIPS SSIM PSNR IOU MIOU FLOPS FP16
    FP32 FP8 FP4 BF16 INT8 TFLOPS GB MB TB CUDA RAM SVM KNN CRF HMM EM VI ELBO KKT LP QP MILP NP PTAS
    DAG TSP VRP CVRP SWE GFLOWNET GFLOWNETS SSL SIMCLR CLIP DINO SAM YOLO GCP PE DOW CN SMAC SMACV2
"""
GENERIC = frozenset(_GENERIC_WORDS.split())
_APPOSITION_RE = re.compile(r"(?: \([^()]*\))?(?: and \S+)?(?: \w+)?, (?:a|an|which)\b")  # "X (…) tool, a"
_EXPANSION_RE = re.compile(r" \([A-Z][^()]{6,}\)")  # "PAVE (Policy-Aware Value-field Equalization)"
_TOKEN_RE = re.compile(r"[^\W_]+(?:[-.][^\W_]+)*")
# The tokens _TOKEN_RE finds that do not start with a-z: a token starts where no letter or
# digit precedes, nor "letter-or-digit then - or ." (that would continue the token before).
_UNLOWER_TOKEN_RE = re.compile(r"(?<![^\W_])(?<![^\W_][-.])(?![a-z])[^\W_]+(?:[-.][^\W_]+)*")
_URL_RE = re.compile(r"(?i:https?://)\S+|\b(?:[\w-]++\.)++(?:io|com|org|net|ai)\b(?:/\S*)?")
_URL_HINTS = ("://", ".io", ".com", ".org", ".net", ".ai")  # _URL_RE matches nothing without one


def strip_urls(text: str, replacement: str) -> str:
    """``text`` with web addresses replaced (``_URL_RE.sub(replacement, text)``)."""
    spans = url_spans(text)
    if not spans:
        return text
    pieces: list[str] = []
    last = 0
    for start, end in spans:
        pieces += (text[last:start], replacement)
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


@lru_cache(maxsize=64)  # the short name and the title of one abstract both strip its addresses
def url_spans(text: str) -> tuple[tuple[int, int], ...]:
    """Where ``_URL_RE`` matches ``text``; the regex runs only on the words that hold a hint.

    A match holds no whitespace and one of _URL_HINTS, so it lies in one such word, and a word's
    edges (whitespace, or the text's ends) look the same to the regex as the whole text's.
    """
    if not any(h in text for h in _URL_HINTS):
        return ()
    if not text.isprintable():  # whitespace other than " ": the whole text
        return tuple(m.span() for m in _URL_RE.finditer(text))
    words = set()
    for hint in _URL_HINTS:
        i = text.find(hint)
        while i >= 0:
            end = text.find(" ", i)
            end = len(text) if end < 0 else end
            words.add((text.rfind(" ", 0, i) + 1, end))
            i = text.find(hint, end)
    return tuple(m.span() for start, end in sorted(words) for m in _URL_RE.finditer(text, start, end))


_TITLE_COMPOUND_RE = re.compile(r"[A-Z][a-z]+(?:-[A-Za-z][a-z]*)+")
_ABBREV = ("e.g.", "i.e.", "et al.", "vs.", "cf.", "Fig.", "Eq.", "a.k.a.", "approx.", "resp.", "U.S.")
_SENT_END_RE = re.compile(
    r"[.!?。！？](?:\s+(?=[\"“(\[]?[A-Z0-9\u3040-\u30ff\u4e00-\u9fff])"  # ". Next"
    r"|(?<=[。！？])"  # CJK full stops need no space
    r"|(?<=[a-z]{2}\.)(?=[A-Z][a-z]{2}))"  # "pipeline.Experiments": a missing space
)


@lru_cache(maxsize=256)
def split_sentences(text: str) -> tuple[str, ...]:
    """Sentences of readable text (abbreviations such as "e.g." do not end one)."""
    out: list[str] = []
    start = 0
    for m in _SENT_END_RE.finditer(text):
        piece = text[start : m.start() + 1]
        if piece.endswith(_ABBREV):
            continue
        out.append(piece.strip())
        start = m.end()
    out.append(text[start:].strip())
    return tuple(s for s in out if s)


def _upper_count(token: str) -> int:
    return sum(map(str.isupper, token))


def _is_generic(token: str) -> bool:
    t = token.upper()
    return t in GENERIC or (token.endswith("s") and t[:-1] in GENERIC)


def _qualifies(token: str) -> bool:
    """Looks like a coined method name: RACER, STAR-KV, PoMtVRS, Conf-Gen, D²TR."""
    if not token or not (token[0].isupper() or token[0].isdigit()):
        return False
    caps = _upper_count(token)
    if caps == 0 or sum(map(str.isalpha, token)) < (2 if caps >= 2 else 3) or _is_generic(token):
        return False
    return caps >= 2 or any(map(str.isdigit, token))


@dataclass
class _Candidate:
    name: str
    first: int
    cue: float = 0.0
    words: int = 1


def _spots(name: str, text: str) -> list[tuple[int, bool]]:
    """End offsets of `name` as a whole token in text, each flagged when it is a prefix ("SCORE-LOND")."""
    # Plain string search: a regex per candidate name would be compiled anew for every abstract.
    out: list[tuple[int, bool]] = []
    i = text.find(name)
    n = len(name)
    while i >= 0:
        end = i + n
        before_ok = i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "_-")
        nxt = text[end : end + 1]
        if before_ok and not (nxt.isalnum() or nxt == "_"):
            prefix = nxt == "-" and (text[end + 1 : end + 2].isalnum() or text[end + 1 : end + 2] == "_")
            out.append((end, prefix))
        i = text.find(name, i + 1)
    return out


def _occurrences(name: str, text: str) -> tuple[int, int]:
    spots = _spots(name, text)
    prefix = sum(1 for _, p in spots if p)
    return len(spots) - prefix, prefix


def _parens_defined(name: str, text: str) -> bool:
    if f"({name})" in text or f"({name}s)" in text:
        return True
    return any(_EXPANSION_RE.match(text, end) for end, prefix in _spots(name, text) if not prefix)


def _apposed(name: str, text: str) -> bool:
    return any(_APPOSITION_RE.match(text, end) for end, prefix in _spots(name, text) if not prefix)


def _window(sentence: str, start: int) -> str:
    """Text after a cue up to the first clause break outside parentheses."""
    depth = 0
    for k in range(start, min(len(sentence), start + 180)):
        c = sentence[k]
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(depth - 1, 0)
        elif depth == 0 and c in ",;:":
            return sentence[start:k]
    return sentence[start : start + 180]


def _runs(window: str) -> list[list[str]]:
    """Maximal runs of capitalised words (name-like phrases) in a cue window."""
    runs: list[list[str]] = []
    cur: list[str] = []
    for raw in window.split():
        word = raw.strip(".,;:!?\"“”'’")
        core = word.strip("()")
        capital = bool(core) and (core[0].isupper() or _qualifies(core))
        if word.startswith("(") and core:
            capital = _upper_count(core) >= 1
        if capital and not word.startswith("(") and word == core:
            cur.append(core)
            continue
        if cur:
            runs.append(cur)
            cur = []
        if capital and word.startswith("(") and core:
            runs.append([word])  # "(ACRO)" stands alone
    if cur:
        runs.append(cur)
    return runs


def _credit(cands: dict[str, _Candidate], window: str, text: str, offset: int, cue: float) -> None:
    """Give the cue to the names in a window: "(ACRO)", a repeated phrase, or coined tokens."""
    for run in _runs(window):
        if run[0].startswith("("):
            token = run[0].strip("()")
            if _qualifies(token) or (_upper_count(token) >= 1 and len(token) >= 2 and not _is_generic(token)):
                _bump(cands, token, _position(token, text, offset), cue)
            continue
        phrase = " ".join(run)
        tokens = [w for w in run if _qualifies(w) and not _TITLE_COMPOUND_RE.fullmatch(w)]
        if 2 <= len(run) <= 3 and (tokens or _occurrences(phrase, text)[0] >= 2):
            _bump(cands, phrase, _position(phrase, text, offset), cue, words=len(run))
            continue
        for token in tokens:
            _bump(cands, token, _position(token, text, offset), cue)


def _position(name: str, text: str, offset: int) -> int:
    found = text.find(name, offset)
    return found if found >= 0 else offset


def _bump(cands: dict[str, _Candidate], name: str, offset: int, cue: float, words: int = 1) -> None:
    cand = cands.setdefault(name, _Candidate(name, offset, words=words))
    cand.cue = max(cand.cue, cue)
    cand.first = min(cand.first, offset)


def find_short_name(readable: str) -> str | None:
    """The method/system name the abstract introduces (RACER, STAR-KV, OGPO), or None."""
    try:
        return _find_short_name(readable)
    except Exception:  # RecursionError included: a bug here must not stop an import
        log.warning("no short name: finding one failed on %.80r", readable, exc_info=True)
        return None


def _find_short_name(readable: str) -> str | None:
    text = strip_urls(readable, " ")
    cands: dict[str, _Candidate] = {}
    pos = 0
    scan = CueScan(text)
    for sentence in split_sentences(text):
        offset = text.find(sentence, pos)
        pos = max(offset, pos)
        cued = False
        for m, strength in scan.matches(offset, offset + len(sentence)):
            start, end = m.start() - offset, m.end() - offset  # in the sentence
            if m.group(0)[:3].lower() == "and" and not re.search(r"\bwe\b", sentence[:start], re.I):
                continue  # "... and propose" counts only when the authors are the subject
            verb = (m.groupdict().get("verb") or "").lower()
            cue = strength or (6.0 if re.fullmatch(_STRONG_VERBS, verb) else 4.0)
            _credit(cands, _window(sentence, end), text, m.start(), cue)
            cued = cued or cue >= 6.0
        if cued:
            # Acronyms defined anywhere in a "we propose" sentence ("two new algorithms: ... (GTPO)").
            for m in re.finditer(r"\(([^\s()]{2,15})\)", sentence):
                if _qualifies(m.group(1)):
                    _bump(cands, m.group(1), offset + m.start() + 1, 3.0)
    for m in _UNLOWER_TOKEN_RE.finditer(text):
        token = m.group(0)
        if token[0].islower() or token[1:].islower() or token.isupper():
            continue  # the fallback wants coined mixed-case names only (HiDe, DivMorph)
        if _qualifies(token) and not _TITLE_COMPOUND_RE.fullmatch(token):
            cands.setdefault(token, _Candidate(token, m.start()))
    best: tuple[int, float, int, str] | None = None
    for cand in cands.values():
        whole, prefix = _occurrences(cand.name, text)
        if whole == 0 and prefix == 0:
            continue
        defined = _parens_defined(cand.name, text)
        if cand.words == 1 and _TITLE_COMPOUND_RE.fullmatch(cand.name) and not defined:
            continue  # "Reward-Shaping", "Actor-Critic": ordinary compounds unless defined as a name
        score = cand.cue + min(whole - 1, 4) + 0.5 * min(prefix, 4)
        if defined:
            score += 2
        if _apposed(cand.name, text):
            score += 2
        if cand.cue >= 3:
            tier, ok = 1, score >= 5 and (whole >= 2 or cand.cue >= 4)
        else:  # no cue: only a coined mixed-case name used throughout (HiDe)
            tier, ok, score = 0, whole >= 3, whole
        key = (tier, score, -cand.first, cand.name)
        if ok and (best is None or key[:3] > best[:3]):
            best = key
    return best[3] if best else None


_CONNECTORS = frozenset(("of", "for", "with", "and", "to", "in", "on", "via", "from", "by", "the", "a", "an"))
_DANGLING = frozenset(
    ("that", "which", "through", "as", "or", "comprising", "including", "such", "using", "while")
)
_LONG_FORM_NOUNS = r"(?:framework|method|approach|algorithm|model|module|layer|strategy|system|pipeline)"
# "we propose / this paper introduces …": the sentence that says what the paper does.
_WE_PROPOSE_RE = re.compile(
    rf"(?:{_SUBJECT}|\band)\s+{_ADVERBS}"
    r"(?:propose|introduce|present|develop|design|describe|unveil)(?:s|d|ed)?\s+",
    re.IGNORECASE,
)
_BY_RE = re.compile(
    _SUBJECT + r"\s+" + _ADVERBS + r"(?:address|tackle|solve|overcome|resolve)(?:s|es)?\s+"
    r"[^,]{0,40}?\bby\s+(?=\w+ing\b)",
    re.IGNORECASE,
)
_STUDY_RE = re.compile(
    _SUBJECT + r"\s+" + _ADVERBS + r"(?:stud(?:y|ies)|investigate|examine|explore|consider)(?:s|d)?\s+",
    re.IGNORECASE,
)
_OFFER_RE = re.compile(
    rf"{_SUBJECT}\s+{_ADVERBS}(?:derive|establish|give|provide|offer|build|construct|release|curate)(?:s|d)?\s+",
    re.IGNORECASE,
)
_SECONDARY_RE = re.compile(r"\b(?:further|also|additionally|moreover|finally|then|besides)\b", re.I)
_PARTS_RE = re.compile(r"^(?:two|three|four|several|multiple|some|tools)\b", re.I)
_NAMED_LEAD_RE = re.compile(
    r"^([A-Z][\w-]*(?: (?:[A-Z][\w-]*|and|of|for|to|with|via|in|on))*)"  # "Learning to Reconfigure"
    r"(?: \([^()]*\))?, (?:which (\w+) (.*)|(an? .*))"
)
# Short verbs whose last consonant doubles before -ing.
_DOUBLED = frozenset(("admit", "put", "set", "run", "get", "cut", "plan", "map", "scan", "stop"))
_GERUND_VERBS = (
    r"reformulate|reframe|formali[sz]e|cast|relate|compare|revisit|analy[sz]e|formulate|quantify|characteri[sz]e|"
    r"rethink|unify|extend|identify|tackle|advocate|bridge|connect|evaluate|benchmark|measure|interpret|explain"
)
_GERUND_RE = re.compile(
    _SUBJECT + r"\s+(?:(?:also|further|first|then|now|here)\s+)*(?:(?P<adverb>\w+ly)\s+)?"
    rf"(?P<verb>{_GERUND_VERBS})(?:s|es|d)?\s+(?P<rest>.*)",
    re.IGNORECASE,
)
_CLAUSE_RE = re.compile(
    r", (?:where|which|while|whereas|thereby|thus|showing|enabling|making|allowing|leading|yielding|"
    r"resulting|achieving|establishing|demonstrating|highlighting|measuring|outperforming|supporting|"
    r"comprising|including|using|that is|and then|but)\b|: | – | — |; | and, "
)
_THAT_RE = re.compile(
    _SUBJECT + r"\s+" + _ADVERBS + r"(?:show|find|argue|demonstrate|prove|observe|reveal|establish)s?\s+"
    r"(?P<how>how\s+)?(?:that\s+)?(?P<rest>.*)",
    re.IGNORECASE,
)


def gerund(verb: str) -> str:
    """`reframes` → `Reframing`: the base verb as a capitalised -ing form."""
    v = verb.lower()
    if v.endswith("ing") and len(v) > 5:
        return v.capitalize()
    if v.endswith("ies") and len(v) > 4:
        v = v[:-3] + "y"
    elif v.endswith(("ches", "shes", "sses", "xes")):
        v = v[:-2]
    elif v.endswith("s") and not v.endswith("ss"):
        v = v[:-1]
    if v in _DOUBLED:
        return (v + v[-1] + "ing").capitalize()
    if v.endswith("ie"):
        v = v[:-2] + "y"
    elif v.endswith("e") and not v.endswith(("ee", "ye", "oe")):
        v = v[:-1]
    return (v + "ing").capitalize()


def _tidy(phrase: str, *, article: bool = True) -> str:
    """Title-shaped phrase: no asides in parentheses, no trailing clause when long."""
    phrase = re.sub(r" \([^()]*\)", "", phrase)  # acronyms, citations, asides
    phrase = one_space(phrase).strip(" ,;:.–—-")
    if article:
        phrase = re.sub(r"^(?:the|some)\s+", "", phrase, flags=re.IGNORECASE)
    if len(phrase) > 90:
        for m in _CLAUSE_RE.finditer(phrase):
            if m.start() >= 40:
                phrase = phrase[: m.start()]
                break
    words = phrase.strip(" ,;:.–—-").split(" ")
    while len(words) > 2 and words[-1].lower() in _CONNECTORS | _DANGLING:
        words.pop()
    return " ".join(words).strip(" ,;:.–—-。")


def _object_title(rest: str) -> str:
    """Title from what follows "we propose": "Name, a thing that …" reads as "Name: A thing that …"."""
    lead = _NAMED_LEAD_RE.match(rest)
    if lead and len(lead.group(1)) <= 60:
        if lead.group(4):
            return f"{lead.group(1)}: {_capitalize(_tidy(lead.group(4)))}"
        if re.fullmatch(r"[a-z]+", lead.group(2)):
            return f"{lead.group(1)}: {gerund(lead.group(2))} {_tidy(lead.group(3), article=False)}"
    to = re.match(r"to\s+(\w+)\s+(.*)", rest)
    if to:
        return f"{gerund(to.group(1))} {_tidy(to.group(2), article=False)}"
    return _capitalize(_tidy(rest))


def _capitalize(phrase: str) -> str:
    first = phrase.split(" ", 1)[0]
    if first and first.islower() and first[0].isalpha():
        return phrase[0].upper() + phrase[1:]
    return phrase


def fit_title(text: str, limit: int = TITLE_MAX) -> str:
    """Cut to `limit` characters at a word boundary, ending in "…" when cut."""
    text = one_space(text).strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    words = cut.split(" ")
    while len(words) > 1 and words[-1].lower() in _CONNECTORS | _DANGLING:
        words.pop()
    return " ".join(words).rstrip(" ,;:.–—-") + "…"


def _long_form_before(before: str, acronym: str) -> str:
    words = before.rstrip(" (").split(" ")
    run: list[str] = []
    for word in reversed(words):
        if word and (word[0].isupper() or (run and word.lower() in _CONNECTORS - {"the", "a", "an"})):
            run.insert(0, word)
        else:
            break
    while run and run[0].lower() in _CONNECTORS:
        run.pop(0)
    if len(run) >= 2:
        return " ".join(run)
    letters = sum(1 for c in acronym if c.isupper()) or len(acronym)
    parts = 0
    run = []
    for word in reversed(words):
        if not word or not re.fullmatch(r"[a-z][\w-]*", word) or word in _CONNECTORS:
            break
        run.insert(0, word)
        parts += word.count("-") + 1
        if parts >= letters:
            return " ".join(run)
    return ""


def _name_title(text: str, name: str) -> str | None:
    fallback: str | None = None
    for sentence in split_sentences(text):
        spots = [end for end, prefix in _spots(name, sentence) if not prefix]
        if not spots:
            continue
        before, after = sentence[: spots[0] - len(name)], sentence[spots[0] :]
        long_form = ""
        paren = re.match(r"\s*\(([^()]{4,})\)", after)
        if paren and (" " in paren.group(1).strip() or "-" in paren.group(1)):
            long_form, after = paren.group(1).strip(), after[paren.end() :]
        elif before.endswith("(") and after.startswith(")"):
            long_form, after = _long_form_before(before, name), after[1:]
        apposition = re.match(rf"(?: {_LONG_FORM_NOUNS}| [a-z][\w-]*){{0,2}},\s+(an?\s.*)", after) or (
            re.match(r"\s+is\s+((?:an?|the)\s.*)", after) if not before.strip() else None
        )
        if apposition:
            return f"{name}: {_capitalize(_tidy(apposition.group(1), article=False))}"
        named = re.search(r"\b(an?\s[^,]{5,80}?)\s+(?:named|called|dubbed|termed)\s+$", before)
        if named:
            that = re.match(r"\s*(?:\([^()]*\))?\s*((?:that|which)\s.*)", after)
            return f"{name}: {_capitalize(_tidy(named.group(1) + (' ' + that.group(1) if that else '')))}"
        if long_form:
            purpose = re.match(r"\s+for\s+(.*)", after)
            tail = f" for {_tidy(purpose.group(1))}" if purpose else ""
            return f"{name}: {_capitalize(_tidy(long_form))}{tail}"
        clause = re.match(r"(?: [a-z][\w-]*){0,2},?\s+(?:which|that)\s+(\w+)\s+(.*)", after) or re.match(
            r",\s+(\w+ing)\s+(.*)", after
        )
        if clause and fallback is None and re.fullmatch(r"[a-z]+", clause.group(1)):
            fallback = f"{name}: {gerund(clause.group(1))} {_tidy(clause.group(2), article=False)}"
    return fallback


def _sentence_title(text: str) -> str:
    """Title from the sentence that says what the paper does, in order of how telling it is."""
    sentences = split_sentences(text)
    if not sentences:
        return ""
    secondary: list[str] = []  # "we then/further propose": usually not the main contribution
    parts: list[str] = []  # "we introduce two routes: …": components, not the paper
    for s in sentences:
        m = _WE_PROPOSE_RE.search(s)
        if m and not (m.group(0)[:3].lower() == "and" and not re.search(r"\bwe\b", s[: m.start()], re.I)):
            rest = s[m.end() :]
            if _PARTS_RE.match(rest):
                parts.append(rest)
            elif _SECONDARY_RE.search(s[: m.end()].rstrip()):
                secondary.append(rest)
            else:
                return _object_title(rest)
    for s in sentences:
        m = _BY_RE.search(s)
        if m:
            return _capitalize(_tidy(s[m.end() :], article=False))
    if sentences[0].endswith("?") and len(sentences[0]) <= TITLE_MAX:
        return sentences[0]
    for s in sentences:
        m = _STUDY_RE.search(s)
        if m:
            return _capitalize(_tidy(s[m.end() :]))
    if secondary:
        return _object_title(secondary[0])
    for s in sentences:
        m = _GERUND_RE.search(s)
        if m:
            rest = re.sub(
                rf"^(.*?)\band ({_GERUND_VERBS}|improve)\b",
                lambda g: g.group(1) + "and " + gerund(g.group(2)).lower(),
                m.group("rest"),
                count=1,
            )
            verb = gerund(m.group("verb"))
            if m.group("adverb"):  # "we partially identify" → "Partially identifying"
                verb = f"{m.group('adverb').capitalize()} {verb.lower()}"
            return f"{verb} {_tidy(rest, article=False)}"
    for s in sentences:
        m = _OFFER_RE.search(s)
        if m:
            return _capitalize(_tidy(s[m.end() :]))
    if parts:
        return _object_title(parts[0])
    for s in sentences:
        m = _THAT_RE.search(s)
        if m:
            if m.group("how"):
                return "How " + _tidy(m.group("rest"), article=False)
            return _capitalize(_tidy(m.group("rest"), article=False))
    return _capitalize(_tidy(sentences[0], article=False))


def derive_title(readable: str, short_name: str | None) -> str:
    """A scannable title (≤ 120 chars, plain text): "NAME: what it is" or the abstract's key sentence."""
    try:
        title = _derive_title(readable, short_name)
    except Exception:  # RecursionError included: a bug here must not stop an import
        log.warning("title derivation failed, the abstract's opening is used: %.80r", readable, exc_info=True)
        title = ""
    title = _plain_title(title) or _plain_title(readable)
    return fit_title(title) or "Untitled"


def _plain_title(text: str) -> str:
    """No markup debris may reach a title, even from unreadable input."""
    text = re.sub(r"\*{2,}", "", re.sub(r"[$\\]", "", text))
    return one_space(text).strip()


def _derive_title(readable: str, short_name: str | None) -> str:
    text = one_space(strip_urls(readable, "")).strip() or readable.strip()
    if short_name and short_name in text:
        named = _name_title(text, short_name)
        if named:
            return named
        base = _sentence_title(text)
        return base if short_name in base else f"{short_name}: {base}"
    return _sentence_title(text)

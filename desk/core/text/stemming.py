"""The one English stemmer of desk: the search index, its queries, highlighting and LSA stem alike.

Snowball's English stemmer (Porter2) through PyStemmer (C): Whoosh's Porter leaves
"calibrating" as "calibrat" beside "calibration" -> "calibr", "running" as "runn" and "weakly" as
"weakli", and stems "general", "generation" and "generalization" alike ("gener"), so a title's
words missed their abstract's (4-keyword known-item MRR +0.004 and researcher
queries +0.02 on the dev set's even papers, +0.004/+0.009 on the odd). Also 2× faster per word.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import Stemmer  # type: ignore[import-not-found]  # PyStemmer ships no type hints

#: Named in the search index's and the vector store's versions: other stems, another index.
ALGORITHM = "snowball-english"

_ENGLISH = Stemmer.Stemmer("english")
_LOCK = threading.Lock()  # a PyStemmer object is not safe to share between threads


#: What a word is, for the index, its queries, highlighting and LSA alike. whoosh-reloaded's
#: default also takes "*" as a word character, which would index Markdown's "**OGPO**" as one token.
TOKEN_PATTERN = r"\w+(?:\.\w+)*"


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The stem of a lowercased word ("calibrating" -> "calibr", "policies" -> "polici")."""
    with _LOCK:
        return str(_ENGLISH.stemWord(word))

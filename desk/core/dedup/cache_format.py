"""The near-duplicate finder's cache file (``desk.core.runtime.paths.DUPLICATES_CACHE_NAME``, a
``desk.core.store.derived_files`` store): its kind, version and the part holding the saved links.

A module of constants alone, so the lists' reader of the saved links
(``desk.core.library.copies``) loads nothing of the detector.
"""

CACHE_KIND = "desk-near-duplicates"
CACHE_VERSION = 3  # 1 was a pickle: never read again; 2 held shingle sets, not words and sentences
LINK_PART = "links"  # the part that answers groups() without loading every paper's hashes

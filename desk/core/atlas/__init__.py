"""The map of the library: every paper a point in 2D laid out by meaning, grouped into named clusters.

``layout`` reduces the semantic vectors (PCA), links each paper to its nearest neighbours and
lays that graph out in the plane (UMAP's objective, optimised in numpy); ``clusters`` groups the
same graph; ``labels`` names each group by the words that set its abstracts apart; ``store``
keeps the result as a derived, checksummed file; ``build`` puts them together.

May import: runtime, text, store, semantic, search.
"""

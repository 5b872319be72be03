"""The semantic signal: LSA vectors of the abstracts, fused with BM25F, related papers and recommendations.

May import: runtime, text, store.
"""

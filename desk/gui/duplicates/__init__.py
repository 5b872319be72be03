"""The duplicates review: near-duplicate papers side by side, merged or told apart by key."""

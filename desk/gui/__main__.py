"""`python -m desk.gui [FILE...]` is the same as `desk-gui`: what a desktop entry runs when no
launcher script sits beside the interpreter."""

from desk.gui.app import main

main()

"""The main window: builds the panes, wires their signals, opens the library, keeps its state."""

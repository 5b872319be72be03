"""The Qt window. Calls desk.core.Library only; no SQL, no Whoosh."""

"""Searching as you type: the search box and its hints, the controller that runs searches, the result list."""

#!/usr/bin/env bash
# The system libraries Qt's window needs on a bare Debian/Ubuntu machine (and python3-venv), and
# Xvfb, openbox and xdotool for the real-display check (scripts/real_display_check.py).
# Runs apt-get as root, or through sudo when started as a user.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends \
    python3-venv \
    libegl1 libgl1 libglib2.0-0 libfontconfig1 libfreetype6 libdbus-1-3 \
    libxkbcommon0 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0 \
    libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 \
    libxcb-xkb1 libx11-xcb1 fonts-dejavu-core desktop-file-utils \
    xvfb openbox xdotool x11-utils

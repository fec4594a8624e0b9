#!/bin/bash
# Oracle solution for build-script-repair: brings the initial workspace to the reference end state.
set -euo pipefail
cd "${WORKSPACE:-/workspace}"

cat > build.sh <<'SPROUT_EOF'
#!/bin/bash
# Assemble dist/<name>-<version>/ and dist/<name>-<version>.tar.gz from src/, templates/ and docs/.
# Fail fast: a half-built release is worse than none.
set -euo pipefail
cd "$(dirname "$0")"

NAME=$(sed -n 's/^name *= *//p' pkg.conf)
VERSION=$(sed -n 's/^version *= *//p' pkg.conf)
PKG="$NAME-$VERSION"
STAGE="dist/$PKG"

# Start from a clean slate so files from earlier builds never ship.
rm -rf "$STAGE" "dist/$PKG.tar.gz"
mkdir -p "$STAGE/bin" "$STAGE/lib" "$STAGE/share/doc"
cp -r src/tally "$STAGE/lib/"
rm -rf "$STAGE/lib/tally/tests"
find "$STAGE/lib" -name __pycache__ -prune -exec rm -rf {} +
sed "s/@VERSION@/$VERSION/" templates/tally.sh.in > "$STAGE/bin/tally"
chmod 755 "$STAGE/bin/tally"
sed -i "s/@VERSION@/$VERSION/" "$STAGE/lib/tally/__init__.py"
cp docs/README.txt "$STAGE/share/doc/"

# MANIFEST: sha256 of every shipped file
# Computed outside the stage so MANIFEST does not list itself; paths relative, byte-sorted.
(cd "$STAGE" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum) > dist/MANIFEST.tmp
mv dist/MANIFEST.tmp "$STAGE/MANIFEST"

tar -C dist -czf "dist/$PKG.tar.gz" "$PKG"
echo "built dist/$PKG.tar.gz"
SPROUT_EOF

#!/bin/bash
# Assemble dist/<name>-<version>/ and dist/<name>-<version>.tar.gz from src/, templates/ and docs/.

NAME=$(grep '^name' pkg.conf | cut -d= -f2)
VERSION=$(grep '^version' pkg.conf | cut -d= -f2)
PKG=$NAME-$VERSION
STAGE=dist/$PKG

mkdir -p $STAGE/bin $STAGE/lib $STAGE/share/doc
cp -r src/tally $STAGE/lib/
sed "s/@VERSION@/$VERSION/" templates/tally.sh.in > $STAGE/bin/tally
sed -i "s/@VERSION@/$VERSION/" $STAGE/lib/tally/__init__.py
cp docs/README.txt $STAGE/share/doc/

# MANIFEST: sha256 of every shipped file
find $STAGE -type f | xargs sha256sum > $STAGE/MANIFEST

tar czf dist/$PKG.tar.gz $STAGE
echo "built dist/$PKG.tar.gz"

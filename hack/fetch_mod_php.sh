#!/usr/bin/env bash
# Debian's mod_php, for the tests that prove httpd24's MPM choice on the real apache2:
#   hack/fetch_mod_php.sh DIR    -> DIR/libphp.so (cached: nothing to do when it is there)
#
# The .so is taken out of the libapache2-mod-php .deb rather than installed with it: the package's
# maintainer scripts would switch the system's apache2 to prefork and enable php, and the tests read
# Debian's /etc/apache2 tree as shipped. Only the libraries it links against are installed (the
# lib* dependencies of the php packages: libraries, no services).
set -euo pipefail
dest=$1
[ -f "$dest/libphp.so" ] && { echo "mod_php present"; exit 0; }
versioned() { apt-cache depends libapache2-mod-php 2>/dev/null | awk '/Depends: libapache2-mod-php/ {print $2; exit}'; }
package=$(versioned)
[ -n "$package" ] || { apt-get update -q; package=$(versioned); }
[ -n "$package" ] || { echo "hack/fetch_mod_php.sh: apt knows no libapache2-mod-php" >&2; exit 1; }
php=${package#libapache2-mod-}
missing=()
for library in $(apt-cache depends "$package" "$php-cli" "$php-common" | awk '/Depends: lib/ {print $2}' | sort -u); do
  dpkg -s "$library" >/dev/null 2>&1 || missing+=("$library")
done
if [ ${#missing[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# _apt cannot write into a private temp dir; apt warns and downloads as root, which is what we want.
(cd "$work" && apt-get download -q "$package" 2>&1 | grep -v "Download is performed unsandboxed" || true)
deb=$(find "$work" -maxdepth 1 -name '*.deb' | head -n 1)
[ -n "$deb" ] || { echo "hack/fetch_mod_php.sh: apt-get download $package fetched nothing" >&2; exit 1; }
dpkg-deb -x "$deb" "$work/tree"
so=$(find "$work/tree" -name 'libphp*.so' | head -n 1)
[ -n "$so" ] || { echo "hack/fetch_mod_php.sh: no libphp*.so in $package" >&2; exit 1; }
unresolved=$(ldd "$so" | awk '/not found/ {print $1}')
[ -z "$unresolved" ] || { echo "hack/fetch_mod_php.sh: $so needs $unresolved" >&2; exit 1; }
install -D -m 0644 "$so" "$dest/libphp.so"
echo "mod_php: $package -> $dest/libphp.so"

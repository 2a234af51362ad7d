#!/usr/bin/env bash
# Prints the Debian packages that own the shared libraries BINARY needs (its
# NEEDED entries, for this machine's multiarch triplet), one per line. The
# Dockerfile installs these in the runtime image, so the list follows what the
# enabled plugins link instead of being kept by hand.
# Libraries loaded at run time are not NEEDED entries: libmariadb's client
# authentication plugins (caching_sha2_password, MySQL 8's default login) ship
# in libmariadb's own package, which is checked to hold it.
# Usage: scripts/runtime-packages.sh BINARY
set -euo pipefail
bin=${1:?usage: runtime-packages.sh BINARY}
triplet=$(gcc -dumpmachine 2>/dev/null || echo x86_64-linux-gnu)
for lib in $(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  pkg=$(dpkg -S "*/$triplet/$lib" 2>/dev/null | head -1 | cut -d: -f1)
  if [[ -z $pkg ]]; then
    echo "runtime-packages: no Debian package owns $lib" >&2
    exit 1
  fi
  if [[ $lib == libmariadb.so.* ]] && ! dpkg -L "$pkg" | grep -q '/caching_sha2_password\.so$'; then
    echo "runtime-packages: $pkg (of $lib) has no caching_sha2_password client plugin:" \
      "mysql-cdc could not log in to MySQL 8" >&2
    exit 1
  fi
  echo "$pkg"
done | sort -u

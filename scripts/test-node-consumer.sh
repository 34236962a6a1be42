#!/usr/bin/env bash
# Packs pkg/ with `npm pack`, installs the tarball into a new project outside
# the repository, and runs the consumer tests there: ES module import,
# CommonJS require, garbage input, the tarball's size against its budget
# (size.test.mjs), and a strict TypeScript check of the
# declarations. Needs `npm run build` first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tarball=$(cd "$work" && npm pack "$root/pkg" --silent | tail -n 1)
# The package: licenses, one wasm file per build, and its sizes.
contents=$(tar -tzf "$work/$tarball")
for f in package/LICENSE-MIT package/LICENSE-APACHE package/web/exporace_bg.wasm; do
  grep -qx "$f" <<<"$contents" || { echo "the package lacks $f" >&2; exit 1; }
done
if grep -q '^package/node/.*\.wasm$' <<<"$contents"; then
  echo "the nodejs build ships its own wasm file; it should read the web build's" >&2
  exit 1
fi
unpacked=$(tar -xzOf "$work/$tarball" | wc -c)
echo "package: $(wc -c <"$work/$tarball") bytes packed, $unpacked unpacked, $(wc -l <<<"$contents") files"
mkdir "$work/app"
cd "$work/app"
printf '{ "name": "exporace-consumer", "private": true, "type": "module" }\n' >package.json
npm install --no-audit --no-fund --silent "$work/$tarball"
cp "$root"/tests/js/consumer/* "$root/tests/js/golden.mjs" "$root/tests/js/files.mjs" .
for config in tsconfig.json tsconfig.nodom.json tsconfig.bundler.json tsconfig.cjs.json; do
  "$root/node_modules/.bin/tsc" -p "$config"
done
echo "typescript: the declarations check under --strict (nodenext with and without dom, bundler, CommonJS), without skipLibCheck"
EXPORACE_GOLDEN="$root/tests/golden" EXPORACE_EXAMPLES="$root/docs/examples" \
  EXPORACE_ROOT="$root" EXPORACE_TARBALL="$work/$tarball" node --test --test-concurrency=2 size.test.mjs esm.test.mjs cjs.test.cjs garbage.test.mjs core-values.test.mjs safetensors.test.mjs tensors.test.mjs wasm-array.test.mjs exports.test.mjs reports.test.mjs forensics.test.mjs async.test.mjs fuzz.test.mjs hostile-values.test.mjs

# The package README's example, run as written from the installed tarball.
awk '/^```js$/{on=1; next} /^```$/{if (on) exit} on' "$root/crates/exporace-wasm/README.md" >readme-example.mjs
out=$(node readme-example.mjs)
printf '%s\n' "$out"
grep -q '^\[ 2, 0 \]$' <<<"$out" || { echo "the README example did not print [ 2, 0 ]" >&2; exit 1; }
echo "README example: ran and printed the documented recovered tokens"

# The README's WasmArray example, run as written from the installed tarball.
awk '/^## Arrays in wasm memory/{f=1} f && /^```js$/{on=1; next} on && /^```$/{exit} on' \
  "$root/crates/exporace-wasm/README.md" >readme-wasm-array.mjs
out=$(node readme-wasm-array.mjs)
[ "$out" = "true" ] || { echo "the README WasmArray example printed '$out', not true" >&2; exit 1; }
echo "README WasmArray example: ran and printed true"

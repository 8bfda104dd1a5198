#!/usr/bin/env bash
# Checks G4MF files with the official JSON schemas (ajv-cli 5, draft 2020-12, with the schemas'
# $ids made path-shaped by shared/g4mf/tools/fix_schema_ids.py) and with the shared semantic
# checker shared/g4mf/tools/g4tf_check.py. A .g4b is first turned into the equivalent .g4tf (its
# JSON chunk decoded, chunk buffers as base64 data URIs) because both tools read text files.
#
#   tools/g4mf/check.sh FILE.g4tf|FILE.g4b ...
#   tools/g4mf/check.sh --samples RIGFIT_TESTS   # writes rigfit's sample files with the test
#                                                # binary (G4mfFiles.WriteSamples) and checks them
#
# Exit status 0 when every file passes both tools. Needs node + npm (ajv-cli is installed into
# tools/g4mf/node_modules on first use), python3 and the zstd command for compressed .g4b files.
# The shared folder defaults to ../shared/g4mf beside the checkout ($RIGFIT_G4MF_SHARED overrides).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
shared="${RIGFIT_G4MF_SHARED:-$here/../../../shared/g4mf}"
[ -d "$shared/schema" ] || { echo "check.sh: no G4MF schemas at $shared/schema" >&2; exit 2; }
if [ ! -x "$here/node_modules/.bin/ajv" ]; then
  (cd "$here" && npm install --no-audit --no-fund --silent) >&2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

files=()
if [ "${1:-}" = "--samples" ]; then
  [ $# -eq 2 ] || { echo "usage: check.sh --samples RIGFIT_TESTS" >&2; exit 2; }
  mkdir -p "$tmp/samples"
  RIGFIT_G4MF_SAMPLES="$tmp/samples" "$2" --gtest_filter='G4mfFiles.WriteSamples' >"$tmp/samples.log" 2>&1 ||
    { cat "$tmp/samples.log" >&2; exit 1; }
  for f in "$tmp"/samples/*; do files+=("$f"); done
else
  files=("$@")
fi
[ ${#files[@]} -gt 0 ] || { echo "usage: check.sh FILE.g4tf|FILE.g4b ... | --samples RIGFIT_TESTS" >&2; exit 2; }

python3 "$shared/tools/fix_schema_ids.py" "$shared/schema" "$tmp/schema" >/dev/null

status=0
n=0
bad=0
for f in "${files[@]}"; do
  n=$((n + 1))
  text="$tmp/$n.g4tf"
  python3 - "$f" "$text" <<'PY'
import base64, json, struct, subprocess, sys
src, dst = sys.argv[1], sys.argv[2]
raw = open(src, 'rb').read()
if raw[:4] != b'G4MF':
    open(dst, 'wb').write(raw)
    sys.exit(0)
def decode(data, enc):
    if enc == b'\0\0\0\0':
        return data
    if enc == b'Zstd':
        return subprocess.run(['zstd', '-dc'], input=data, capture_output=True, check=True).stdout
    sys.exit(f'{src}: unsupported chunk encoding {enc!r}')
chunks, off, end = [], 16, struct.unpack('<Q', raw[8:16])[0]
while end - off >= 16:
    typ, enc, size = raw[off:off + 4], raw[off + 4:off + 8], struct.unpack('<Q', raw[off + 8:off + 16])[0]
    chunks.append((typ, enc, raw[off + 16:off + 16 + size]))
    off = (off + 16 + size + 15) // 16 * 16
typ, enc, data = next(c for c in chunks if c[0] == b'JSON')
doc = json.loads(decode(data, enc).decode('utf-8'))
for b in doc.get('buffers', []):
    if 'chunk' in b:
        _, cenc, cdata = chunks[b.pop('chunk')]
        b.pop('encoding', None)
        b['uri'] = 'data:application/octet-stream;base64,' + base64.b64encode(decode(cdata, cenc)).decode('ascii')
open(dst, 'w', encoding='utf-8', newline='\n').write(json.dumps(doc, ensure_ascii=True, indent='\t') + '\n')
PY
  cp "$text" "$tmp/$n.json"  # ajv-cli picks its parser from the extension
  echo "== $f"
  before=$status
  if (cd "$tmp/schema" && "$here/node_modules/.bin/ajv" validate --spec=draft2020 --strict=false \
        -s g4mf.schema.json -r "g4mf.*.schema.json" -r "g4mf_*.schema.json" \
        -r "mesh/**/*.schema.json" -r "physics/*.schema.json" -d "$tmp/$n.json" --errors=text --all-errors) 2>&1 |
      sed "s|$tmp/$n.json|schema:|"; [ "${PIPESTATUS[0]}" -eq 0 ]; then :; else status=1; fi
  if python3 "$shared/tools/g4tf_check.py" "$text" | sed 's/^/g4tf_check: /'; [ "${PIPESTATUS[0]}" -eq 0 ]; then :; else status=1; fi
  [ "$status" = "$before" ] || bad=$((bad + 1))
done
echo "$((${#files[@]} - bad)) passed, $bad failed"
exit $status

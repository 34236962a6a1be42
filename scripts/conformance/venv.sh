# Shell helpers of the opt-in conformance scripts for JAX and MLX, sourced
# with $venv set: a virtual environment made once with an interpreter of the
# versions the engine supports, and pinned installs kept across runs.

py=$venv/bin/python
step() { printf '\n== conformance: %s (%s)\n' "$*" "$(date +%T)"; }

# Makes $venv with ${PYTHON:-python3} if it is not there: $1 and $2 are the
# lowest and the first unsupported Python minor versions, $3 the engine.
make_venv() {
  step "virtual environment $venv"
  [ -x "$py" ] && return
  "${PYTHON:-python3}" -c "import sys; sys.exit(not ((3, $1) <= sys.version_info[:2] < (3, $2)))" \
    || { echo "$3 needs Python 3.$1 to 3.$(($2 - 1)) (set PYTHON)" >&2; exit 1; }
  "${PYTHON:-python3}" -m venv "$venv"
}

# Whether the venv has package $1 at version $2.
have() { "$py" -c "import importlib.metadata as m, sys; sys.exit(m.version('$1') != '$2')" 2>/dev/null; }

# Installs each `name==version` given unless every one is already there.
pinned() {
  step "$*"
  local spec
  for spec in "$@"; do
    have "${spec%%==*}" "${spec##*==}" || {
      "$py" -m pip install --disable-pip-version-check --no-input "$@"
      return
    }
  done
  echo "already installed"
}

# Builds the exporace CLI and runs the shared driver for engine $1 with the
# report path $2 and the script's extra arguments after them.
drive() {
  local engine=$1 out=$2
  shift 2
  step "exporace CLI (release)"
  cargo build --release -p exporace-cli
  step "driver"
  "$py" scripts/conformance_keyed.py --engine "$engine" \
    --exporace "${CARGO_TARGET_DIR:-target}/release/exporace" --out "$out" "$@"
}

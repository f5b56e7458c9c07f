# Shared by scripts/start and scripts/test: create .venv and install the project into it, at
# the versions pinned (with hashes) in the lock files:
#
#   requirements/tools.txt     pip and setuptools, first
#   requirements/lock.txt      the runtime dependencies (ensure_venv)
#   requirements/dev-lock.txt  the runtime and the dev dependencies (ensure_venv dev)
#
# then the project itself, editable, without its dependencies and without build isolation (so
# the pinned setuptools builds it). Installs again only when pyproject.toml or one of those
# lock files changed since the last install: the stamp file keeps their digest. Refresh the
# lock files with bash scripts/lock (docs/operators.md).
ensure_venv() {
  local extra="${1:-}"
  local py="${PYTHON:-python3}"
  if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "Kolkhoz needs Python 3.11 or newer (found: $("$py" --version 2>&1))" >&2
    exit 1
  fi
  local lock=requirements/lock.txt
  if [ -n "$extra" ]; then
    lock="requirements/$extra-lock.txt"
  fi
  local file
  for file in pyproject.toml requirements/tools.txt "$lock"; do
    if [ ! -f "$file" ]; then
      echo "$file is missing: run the command from a complete checkout" >&2
      exit 1
    fi
  done
  if [ ! -x .venv/bin/python ]; then
    echo "Creating a virtual environment in .venv ..."
    "$py" -m venv .venv
  fi
  # shellcheck disable=SC1091
  source .venv/bin/activate
  local stamp=".venv/.installed-${extra:-base}"
  local digest
  digest=$(python - pyproject.toml requirements/tools.txt "$lock" <<'EOF'
import hashlib, sys
h = hashlib.sha256()
for name in sys.argv[1:]:
    with open(name, "rb") as f:
        h.update(name.encode() + b"\0" + hashlib.sha256(f.read()).digest())
print(h.hexdigest())
EOF
  )
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$digest" ]; then
    echo "Installing dependencies from $lock (first run takes a minute) ..."
    rm -f "$stamp"
    local pip=(python -m pip --disable-pip-version-check)
    "${pip[@]}" install --quiet --require-hashes -r requirements/tools.txt
    "${pip[@]}" install --quiet --require-hashes -r "$lock"
    # (setuptools' note on editable installs is for packages laid out unlike this one)
    PYTHONWARNINGS="ignore:Editable installation" \
      "${pip[@]}" install --quiet --no-deps --no-build-isolation -e .
    # A dependency in pyproject.toml that the lock lacks shows up here.
    if ! "${pip[@]}" check >/dev/null; then
      "${pip[@]}" check >&2 || true
      echo "The installed packages do not satisfy pyproject.toml: is $lock up to date" \
        "(bash scripts/lock)?" >&2
      exit 1
    fi
    echo "$digest" >"$stamp"
  fi
  python -m kolkhoz_tg.i18n_compile
}

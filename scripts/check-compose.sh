#!/usr/bin/env bash
# Checks docker-compose.yml without a Docker engine: the file must parse and resolve with no
# warnings (every variable has a default), and Gotenberg must stay pinned to the 8.x line
# (9.x changed the API the gateway speaks). Installs Debian's docker-compose if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v docker-compose >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  # Refresh the package lists only when apt does not know the package yet.
  if ! apt-cache show docker-compose >/dev/null 2>&1; then
    $sudo apt-get update -qq
  fi
  $sudo apt-get install -y -qq --no-install-recommends docker-compose >/dev/null
fi

# Validate; anything on stderr (e.g. "variable is not set") counts as a failure.
warnings="$(docker-compose -f docker-compose.yml config -q 2>&1)" || {
  echo "docker-compose.yml is invalid:" >&2
  echo "$warnings" >&2
  exit 1
}
if [ -n "$warnings" ]; then
  echo "docker-compose.yml resolves with warnings:" >&2
  echo "$warnings" >&2
  exit 1
fi

# The optional S3 profile (an S3 server and its bucket for the documents) must resolve cleanly too.
s3_warnings="$(docker-compose -f docker-compose.yml --profile s3 config -q 2>&1)" || {
  echo "docker-compose.yml's s3 profile is invalid:" >&2
  echo "$s3_warnings" >&2
  exit 1
}
[ -z "$s3_warnings" ] || { echo "docker-compose.yml's s3 profile resolves with warnings:" >&2; echo "$s3_warnings" >&2; exit 1; }

# The resolved config, so the check sees what Compose would run, not just the file's text.
resolved="$(docker-compose -f docker-compose.yml config 2>/dev/null)"
if ! grep -Eq '^[[:space:]]+image:[[:space:]]+gotenberg/gotenberg:8[[:space:]]*$' <<<"$resolved"; then
  echo "the gotenberg service must use image gotenberg/gotenberg:8 (not latest, not 9.x); found:" >&2
  grep -E 'image:[[:space:]]+gotenberg/' <<<"$resolved" >&2 || echo "  (no gotenberg image)" >&2
  exit 1
fi

# PostgreSQL on one pinned major version (an upgrade between majors is a dump and restore).
if ! grep -Eq '^[[:space:]]+image:[[:space:]]+postgres:[0-9]+(\.[0-9]+)?[[:space:]]*$' <<<"$resolved"; then
  echo "the postgres service must pin a major version (e.g. postgres:15), not latest" >&2
  exit 1
fi

# Two gateway replicas on the shared database and the same store volume.
replicas=$(docker-compose -f docker-compose.yml config --services 2>/dev/null | grep -c '^pdfgate-' || true)
shared=$(grep -c 'PDFGATE_DATABASE_URL: postgres://' <<<"$resolved" || true)
volumes=$(grep -Ec 'source: pdfgate-data$|pdfgate-data:/data' <<<"$resolved" || true)
if [ "$replicas" -lt 2 ] || [ "$shared" -lt 2 ] || [ "$volumes" -lt 2 ]; then
  echo "docker-compose.yml needs two pdfgate replicas sharing PDFGATE_DATABASE_URL and the pdfgate-data volume" \
    "(found $replicas replicas, $shared with the database, $volumes mounting the volume)" >&2
  exit 1
fi

echo "docker-compose.yml: ok (gotenberg pinned to 8, postgres pinned, $replicas gateway replicas sharing the database and store)"

# deploy/gotenberg-compose*.yml: Gotenberg compose files with our image, which must resolve too.
for file in deploy/gotenberg-compose.yml deploy/gotenberg-compose-paperless.yml; do
  warnings="$(docker-compose -f "$file" config -q 2>&1)" || {
    echo "$file is invalid:" >&2
    echo "$warnings" >&2
    exit 1
  }
  [ -z "$warnings" ] || { echo "$file resolves with warnings: $warnings" >&2; exit 1; }
  echo "$file: ok"
done

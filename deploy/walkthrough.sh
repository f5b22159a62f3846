#!/usr/bin/env bash
# Follows docs/deploy.md step by step on one Debian machine, as root, and checks the result:
# three instances from a clone in /opt/sitehall, run as the sitehall user with
# /etc/sitehall/sitehall.env, on this machine's PostgreSQL and Redis and an S3-compatible bucket
# (s3rver from the repository's dev dependencies, standing in for the provider), behind nginx with
# deploy/nginx/sitehall.conf and a self-signed certificate; then sections 6 to 8: health and
# metrics, a rolling restart, backup and restore on PostgreSQL and S3, and moving a default
# (SQLite, local files) install to PostgreSQL and S3.
#
# Where the guide says systemctl, this script runs the unit's own command line the way the unit
# does (user, working directory, environment file, PORT and HOST), since machines without systemd
# as PID 1 (containers, this project's CI) cannot start units; `systemd-analyze verify` still
# checks the unit file.
#
#   sudo bash deploy/walkthrough.sh [REPOSITORY]    (default: the repository this script is in)
#
# It takes over ports 80, 443, 3001-3004 and the PostgreSQL databases sitehall_walk*, and removes
# what it made when it ends (KEEP=1 keeps it for a look around).
set -euo pipefail
REPO="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
PGADMIN=(psql -h 127.0.0.1 -U postgres -d postgres -v ON_ERROR_STOP=1 -q)
WORK=$(mktemp -d /tmp/sitehall-walkthrough-XXXXXX)
PIDS=()
step() { printf '\n== %s\n' "$*"; }
ok() { printf '   ok: %s\n' "$*"; }
fail() {
  printf '   FAILED: %s\n' "$*" >&2
  exit 1
}

cleanup() {
  set +e
  [ "${KEEP:-}" = 1 ] && { echo "kept: $WORK, /opt/sitehall, /etc/sitehall, nginx"; return; }
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  nginx -s stop 2>/dev/null
  rm -f /etc/nginx/conf.d/sitehall.conf /etc/systemd/system/sitehall@.service /var/log/nginx/sitehall.*.log
  for db in sitehall_walk sitehall_walk_restored sitehall_walk_moved; do
    "${PGADMIN[@]}" -c "DROP DATABASE IF EXISTS $db" 2>/dev/null
  done
  "${PGADMIN[@]}" -c "DROP ROLE IF EXISTS sitehall" 2>/dev/null
  redis-cli -n 5 FLUSHDB >/dev/null 2>&1
  rm -rf "$WORK" /opt/sitehall /etc/sitehall /var/lib/sitehall /srv/sitehall /backups/sitehall-walk-*
  userdel sitehall 2>/dev/null
}
trap cleanup EXIT

# An S3 bucket of its own for each use (s3rver: a local S3-compatible server). Sets S3_URL.
start_bucket() { # NAME
  local dir="$WORK/s3-$1"
  mkdir -p "$dir"
  # s3rver-main.mjs stops when its stdin ends: a FIFO opened read-write never does.
  mkfifo "$WORK/s3-$1.stdin"
  node --openssl-legacy-provider /opt/sitehall/server/test/support/s3rver-main.mjs "$dir" "$1" \
    >"$WORK/s3-$1.port" 2>"$WORK/s3-$1.log" <>"$WORK/s3-$1.stdin" &
  PIDS+=($!)
  for _ in $(seq 50); do grep -q PORT "$WORK/s3-$1.port" && break; sleep 0.2; done
  S3_URL="http://127.0.0.1:$(awk '{print $2}' "$WORK/s3-$1.port")"
}

# What the unit runs: `systemctl start sitehall@PORT`, with the environment file given.
EXEC_START=$(sed -n 's/^ExecStart=//p' "$REPO/deploy/systemd/sitehall@.service")
start_instance() { # PORT [ENVFILE]
  local port=$1 envfile=${2:-/etc/sitehall/sitehall.env}
  (
    cd /opt/sitehall
    set -a
    # shellcheck disable=SC1090
    . "$envfile"
    set +a
    # Environment=PORT=%i and HOST=127.0.0.1 (the environment file does not set them).
    # shellcheck disable=SC2086 # ExecStart's words
    PORT=$port HOST=127.0.0.1 exec runuser -u sitehall -- $EXEC_START
  ) >"$WORK/instance-$port.log" 2>&1 &
  PIDS+=($!)
  echo $! >"$WORK/instance-$port.pid"
}
wait_ready() { # PORT
  for _ in $(seq 150); do
    curl -fsS "http://127.0.0.1:$1/readyz" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  cat "$WORK/instance-$1.log" >&2
  fail "instance $1 not ready"
}
stop_instance() { # PORT: SIGTERM, as systemctl stop does
  local pid
  pid=$(cat "$WORK/instance-$1.pid")
  pkill -TERM -P "$pid" 2>/dev/null || true
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
  fail "instance $1 did not stop within 20 s"
}

# Requests through nginx, with the names resolved to this machine and our certificate trusted.
CURL=(curl -sS --cacert /etc/sitehall/tls/cert.pem
  --resolve app.example.com:443:127.0.0.1 --resolve sites.example.com:443:127.0.0.1)
via_nginx() { "${CURL[@]}" --resolve "$1:443:127.0.0.1" "${@:2}"; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {'d': d}))" "$1"; }

make_site_zip() { # FILE TITLE
  python3 - "$1" "$2" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('site/index.html', f'<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="style.css"></head><body><h1>{sys.argv[2]}</h1></body></html>')
    z.writestr('site/style.css', 'h1 { color: #1677ff; }\n' * 200)
EOF
}

login() { # BASE (an instance or https://app.example.com) -> token
  local base=$1
  "${CURL[@]}" -f -H 'content-type: application/json' \
    -d "{\"username\":\"admin\",\"password\":\"$ADMIN_PASSWORD\"}" "$base/api/auth/login" | json "d['data']['token']"
}
upload_and_approve() { # BASE ZIP NAME -> project id
  local base=$1 token id
  token=$(login "$base")
  id=$("${CURL[@]}" -f -H "authorization: Bearer $token" -F "project_name=$3" -F "files=@$2;filename=site.zip" \
    "$base/api/projects/upload" | json "d['data']['project']['id']")
  "${CURL[@]}" -f -o /dev/null -H "authorization: Bearer $token" -H 'content-type: application/json' \
    -d '{"action":"approve"}' "$base/api/admin/projects/$id/review"
  echo "$id"
}

ADMIN_PASSWORD="walkthrough-$(openssl rand -hex 8)"
DBPASS="$(openssl rand -hex 12)"

step "1. Prerequisites"
node -e 'const [a, b] = process.versions.node.split(".").map(Number); if (a < 20 || (a === 20 && b < 19)) process.exit(1)' ||
  fail "Node ≥ 20.19 is needed (node -v: $(node -v))"
command -v nginx pg_dump redis-cli openssl >/dev/null || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light postgresql-client redis-tools openssl >/dev/null
}
ok "node $(node -v), $(nginx -v 2>&1), $(pg_dump --version), $(redis-cli --version)"
"${PGADMIN[@]}" <<SQL
CREATE ROLE sitehall LOGIN PASSWORD '$DBPASS';
CREATE DATABASE sitehall_walk OWNER sitehall;
SQL
ok "PostgreSQL: role sitehall, database sitehall_walk"
{ redis-cli -n 5 ping >/dev/null; } || fail "Redis answers (database 5 for this walk-through)"
ok "Redis answers (database 5 for this walk-through)"

step "2. Install the application"
id sitehall >/dev/null 2>&1 || useradd --system --home /var/lib/sitehall --shell /usr/sbin/nologin sitehall
git clone -q "$REPO" /opt/sitehall
cd /opt/sitehall
npm install --no-audit --no-fund --loglevel=error >/dev/null
npm run build --silent >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; fail "build"; }
{ [ -f server/dist/main.js ] && [ -f web/dist/index.html ]; } || fail "server/dist and web/dist built"
ok "server/dist and web/dist built"
install -d -o sitehall -g sitehall -m 0750 /var/lib/sitehall
install -d -m 0750 /etc/sitehall

start_bucket sitehall-blobs
S3_MAIN=$S3_URL
ok "S3-compatible bucket sitehall-blobs at $S3_MAIN"

step "3. Configure"
METRICS_TOKEN=$(openssl rand -hex 16)
cat >/etc/sitehall/sitehall.env <<EOF
NODE_ENV=production
DATA_DIR=/var/lib/sitehall
DATABASE_URL=postgres://sitehall:$DBPASS@127.0.0.1:5432/sitehall_walk
REDIS_URL=redis://127.0.0.1:6379/5
STORAGE=s3
S3_ENDPOINT=$S3_MAIN
S3_REGION=us-east-1
S3_BUCKET=sitehall-blobs
S3_ACCESS_KEY_ID=S3RVER
S3_SECRET_ACCESS_KEY=S3RVER
S3_FORCE_PATH_STYLE=true
SITES_ORIGIN=https://sites.example.com
SITES_SUBDOMAINS=true
TRUST_PROXY=true
METRICS_TOKEN=$METRICS_TOKEN
ADMIN_PASSWORD=$ADMIN_PASSWORD
EOF
chown root:sitehall /etc/sitehall/sitehall.env
chmod 0640 /etc/sitehall/sitehall.env
ok "/etc/sitehall/sitehall.env (0640 root:sitehall)"

step "4. systemd"
cp deploy/systemd/sitehall@.service /etc/systemd/system/
if systemd-analyze verify /etc/systemd/system/sitehall@3001.service 2>"$WORK/verify.log"; then
  ok "systemd-analyze verify sitehall@3001.service: no complaints"
else
  # Without systemd as PID 1 verify may only complain about the missing manager; show it.
  grep -v 'Failed to connect\|not running\|System has not been booted' "$WORK/verify.log" | grep . &&
    fail "systemd-analyze verify"
  ok "systemd-analyze verify: no complaints about the unit"
fi
# Started together, as `systemctl enable --now sitehall@3001 sitehall@3002 sitehall@3003` does:
# the first applies the migrations, the others wait for it.
for port in 3001 3002 3003; do start_instance $port; done
for port in 3001 3002 3003; do wait_ready $port; done
ok "three instances ready: $(curl -fsS http://127.0.0.1:3001/readyz)"
{ [ "$(pgrep -u sitehall -xf "$EXEC_START" | wc -l)" = 3 ]; } || fail "they run as sitehall"
ok "they run as sitehall"
{ [ -z "$(find /var/lib/sitehall -path '*/blobs/*' -type f)" ]; } || fail "no blobs in DATA_DIR: STORAGE=s3"
ok "no blobs in DATA_DIR: STORAGE=s3"

step "5. nginx"
install -d /etc/sitehall/tls
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=app.example.com \
  -addext 'subjectAltName=DNS:app.example.com,DNS:sites.example.com,DNS:*.sites.example.com' \
  -keyout /etc/sitehall/tls/key.pem -out /etc/sitehall/tls/cert.pem 2>/dev/null
cp deploy/nginx/sitehall.conf /etc/nginx/conf.d/sitehall.conf
# "edit: server_name lines, certificate paths, the upstream server list": the names and the
# instance list are already right for this machine; the certificate is ours.
sed -i -e 's#/etc/letsencrypt/live/app.example.com/fullchain.pem#/etc/sitehall/tls/cert.pem#' \
  -e 's#/etc/letsencrypt/live/app.example.com/privkey.pem#/etc/sitehall/tls/key.pem#' \
  /etc/nginx/conf.d/sitehall.conf
nginx -t 2>"$WORK/nginx-t.log" || { cat "$WORK/nginx-t.log"; fail "nginx -t"; }
ok "nginx -t"
nginx -s stop 2>/dev/null || true
sleep 0.5
nginx # systemctl reload nginx, on a machine where nginx was not running yet
ok "nginx started"

got=$(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' --resolve app.example.com:80:127.0.0.1 http://app.example.com/x)
[ "$got" = "301 https://app.example.com/x" ] || fail "port 80 redirects to https ($got)"
ok "port 80 redirects to https"
{ "${CURL[@]}" -f https://app.example.com/ | grep -q '<div id="root">'; } || fail "https://app.example.com/ serves the web app"
ok "https://app.example.com/ serves the web app"
make_site_zip "$WORK/site.zip" 部署演练站点
ID=$(upload_and_approve https://app.example.com "$WORK/site.zip" 部署演练站点)
ok "uploaded and approved through nginx: project $ID"
{ via_nginx "p$ID.sites.example.com" -f "https://p$ID.sites.example.com/" | grep -q 部署演练站点; } || fail "https://p$ID.sites.example.com/ serves the site"
ok "https://p$ID.sites.example.com/ serves the site"
{ via_nginx "p$ID.sites.example.com" -f -o /dev/null "https://p$ID.sites.example.com/style.css"; } || fail "and its stylesheet"
ok "and its stylesheet"
got=$("${CURL[@]}" -o /dev/null -w '%{http_code} %{redirect_url}' "https://app.example.com/sites/$ID/")
[[ "$got" =~ ^30[12]\ https://p$ID\.sites\.example\.com/$ ]] || fail "the app host sends /sites/$ID/ to the site's own origin ($got)"
ok "the app host sends /sites/$ID/ to the site's own origin"
{ [ "$("${CURL[@]}" -o /dev/null -w '%{http_code}' https://sites.example.com/api/auth/profile)" = 404 ]; } || fail "the sites host serves nothing of the app"
ok "the sites host serves nothing of the app"
for port in 3001 3002 3003; do
  grep -q "upstream=127.0.0.1:$port" /var/log/nginx/sitehall.access.log || fail "no request reached $port"
done
ok "nginx spread the requests over all three instances (access log: upstream=)"
# Pushed through one instance, served by the others: the live-site caches are invalidated through
# Redis, and the files come from the shared bucket.
for port in 3001 3002 3003; do
  curl -fsS -H "host: p$ID.sites.example.com" "http://127.0.0.1:$port/" | grep -q 部署演练站点 ||
    fail "instance $port does not serve project $ID"
done
ok "each instance serves project $ID itself"

step "6. Health and metrics"
{ curl -fsS http://127.0.0.1:3002/healthz | grep -q '"ok"'; } || fail "/healthz"
ok "/healthz"
{ curl -fsS http://127.0.0.1:3002/readyz | grep -q '"redis":"ok"'; } || fail "/readyz checks database, migrations, storage and Redis"
ok "/readyz checks database, migrations, storage and Redis"
{ curl -fsS -H "authorization: Bearer $METRICS_TOKEN" http://127.0.0.1:3002/metrics | grep -q sitehall_http_request_duration_seconds; } || fail "/metrics on an instance's port with the token"
ok "/metrics on an instance's port with the token"
{ [ "$(curl -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:3002/metrics)" = 401 ]; } || fail "and 401 without it"
ok "and 401 without it"
{ [ "$("${CURL[@]}" -o /dev/null -w '%{http_code}' -H "authorization: Bearer $METRICS_TOKEN" https://app.example.com/metrics)" = 404 ]; } || fail "closed at the public entrance (nginx)"
ok "closed at the public entrance (nginx)"

step "4. Rolling restart, as in section 4 (a client keeps requesting through nginx meanwhile)"
(
  n=0 bad=0
  while [ ! -f "$WORK/stop-load" ]; do
    code=$(via_nginx "p$ID.sites.example.com" -o /dev/null -w '%{http_code}' "https://p$ID.sites.example.com/" || true)
    n=$((n + 1))
    [ "$code" = 200 ] || { bad=$((bad + 1)); echo "$(date +%T.%N) $code" >>"$WORK/load-failures"; }
  done
  echo "$n $bad" >"$WORK/load"
) &
LOAD=$!
for port in 3001 3002 3003; do
  stop_instance $port
  start_instance $port
  wait_ready $port
  sleep 5 # nginx's fail_timeout
done
touch "$WORK/stop-load"
wait $LOAD
read -r n bad <"$WORK/load"
[ "$bad" = 0 ] || fail "$bad of $n requests failed during the restarts: $(cat "$WORK/load-failures")"
ok "restarted 3001, 3002, 3003 one after the other: $n requests, none failed"

step "7. Backup and restore (PostgreSQL and S3)"
install -d /backups
BACKUP=/backups/sitehall-walk-$(date +%F)
(
  set -a
  . /etc/sitehall/sitehall.env
  set +a
  npm run backup --silent -- "$BACKUP"
) >"$WORK/backup.log" 2>&1 || { cat "$WORK/backup.log"; fail "npm run backup"; }
grep -q 'backup written' "$WORK/backup.log" || fail "npm run backup said: $(cat "$WORK/backup.log")"
ok "$(grep 'backup written' "$WORK/backup.log")"
# Restore into an empty database and a new, empty bucket (the old ones lost).
"${PGADMIN[@]}" -c 'CREATE DATABASE sitehall_walk_restored OWNER sitehall'
start_bucket sitehall-restored
S3_RESTORED=$S3_URL
sed -e "s#/sitehall_walk\$#/sitehall_walk_restored#" -e "s#^S3_ENDPOINT=.*#S3_ENDPOINT=$S3_RESTORED#" \
  -e 's#^S3_BUCKET=.*#S3_BUCKET=sitehall-restored#' /etc/sitehall/sitehall.env >"$WORK/restored.env"
(
  set -a
  . "$WORK/restored.env"
  set +a
  npm run restore --silent -- "$BACKUP"
) >"$WORK/restore.log" 2>&1 || { cat "$WORK/restore.log"; fail "npm run restore"; }
ok "$(grep 恢复完成 "$WORK/restore.log")"
chmod 0644 "$WORK/restored.env"
start_instance 3004 "$WORK/restored.env"
wait_ready 3004
{ curl -fsS -H "host: p$ID.sites.example.com" http://127.0.0.1:3004/ | grep -q 部署演练站点; } || fail "an instance on the restored database and bucket serves project $ID"
ok "an instance on the restored database and bucket serves project $ID"
stop_instance 3004

step "8. Moving a single-machine install to PostgreSQL and S3"
install -d -o sitehall -g sitehall /srv/sitehall/data
printf 'DATA_DIR=/srv/sitehall/data\nADMIN_PASSWORD=%s\n' "$ADMIN_PASSWORD" >"$WORK/single.env"
chmod 0644 "$WORK/single.env"
start_instance 3004 "$WORK/single.env"
wait_ready 3004
make_site_zip "$WORK/old.zip" 单机时代的站点
OLD=$(upload_and_approve http://127.0.0.1:3004 "$WORK/old.zip" 单机站点)
ok "a default install (SQLite, local files) with project $OLD live"
(
  set -a
  . "$WORK/single.env"
  set +a
  npm run backup --silent -- /backups/sitehall-walk-before-move
) >"$WORK/backup-move.log" 2>&1 || { cat "$WORK/backup-move.log"; fail "backup before the move"; }
ok "1. backup before the move"
stop_instance 3004
ok "2. server stopped"
"${PGADMIN[@]}" -c 'CREATE DATABASE sitehall_walk_moved OWNER sitehall'
start_bucket sitehall-moved
S3_MOVED=$S3_URL
(
  cd /opt/sitehall
  DATA_DIR=/srv/sitehall/data \
    STORAGE=s3 S3_BUCKET=sitehall-moved S3_ENDPOINT=$S3_MOVED S3_ACCESS_KEY_ID=S3RVER S3_SECRET_ACCESS_KEY=S3RVER \
    S3_FORCE_PATH_STYLE=true \
    npm run migrate-storage --silent -- --to-database "postgres://sitehall:$DBPASS@127.0.0.1:5432/sitehall_walk_moved"
) >"$WORK/move.log" 2>&1 || { cat "$WORK/move.log"; fail "npm run migrate-storage"; }
ok "3. $(grep -c . "$WORK/move.log") lines of migrate-storage, ending: $(tail -n1 "$WORK/move.log")"
sed -e "s#/sitehall_walk\$#/sitehall_walk_moved#" -e "s#^S3_ENDPOINT=.*#S3_ENDPOINT=$S3_MOVED#" \
  -e 's#^S3_BUCKET=.*#S3_BUCKET=sitehall-moved#' /etc/sitehall/sitehall.env >"$WORK/moved.env"
chmod 0644 "$WORK/moved.env"
start_instance 3004 "$WORK/moved.env"
wait_ready 3004
{ curl -fsS -H "host: p$OLD.sites.example.com" http://127.0.0.1:3004/ | grep -q 单机时代的站点; } || fail "4. an instance on the new PostgreSQL database and bucket serves the moved project $OLD"
ok "4. an instance on the new PostgreSQL database and bucket serves the moved project $OLD"
stop_instance 3004

step "Done: every step of docs/deploy.md ran and checked out"

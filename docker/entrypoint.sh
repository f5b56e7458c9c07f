#!/bin/sh
# The container's entry point: wait for the database if it is PostgreSQL, apply the migrations
# (kolkhoz db upgrade), then hand over to the bot.
#
#   (no arguments)           kolkhoz bot
#   --an-option ...          kolkhoz bot --an-option ...
#   games list, db ping ...  kolkhoz games list, ... (any kolkhoz command: play, bot, db, games)
#   any other command        that command (e.g. `true`, used by the tests)
#
# KOLKHOZ_DB_WAIT_TRIES (default 30) and KOLKHOZ_DB_WAIT_INTERVAL (seconds, default 2) bound
# the wait. To skip all of this (a shell on a broken database): docker run --entrypoint sh.
set -eu

log() {
    printf '%s kolkhoz-entrypoint: %s\n' "$(date -u '+%Y-%m-%dT%H:%M:%SZ')" "$*" >&2
}

tries="${KOLKHOZ_DB_WAIT_TRIES:-30}"
interval="${KOLKHOZ_DB_WAIT_INTERVAL:-2}"

case "${KOLKHOZ_DATABASE_URL:-}" in
    postgres://* | postgresql://* | postgresql+*://*)
        log "waiting for PostgreSQL (at most $tries attempts, ${interval}s apart)"
        attempt=1
        while ! answer=$(kolkhoz db ping 2>&1); do
            log "attempt $attempt/$tries: ${answer:-no answer}"
            if [ "$attempt" -ge "$tries" ]; then
                log "giving up: the database did not answer"
                exit 1
            fi
            attempt=$((attempt + 1))
            sleep "$interval"
        done
        log "$answer"
        ;;
esac

# Everything but the final command writes to stderr, so that an operator command's stdout is
# its output alone (`... games export 42 > game.json` is valid JSON).
log "applying migrations"
if ! kolkhoz db upgrade >&2; then
    log "migrations failed"
    exit 1
fi

if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then
    log "starting: kolkhoz bot${*:+ $*}"
    exec kolkhoz bot "$@"
fi
case "$1" in
    play | bot | db | games)
        log "starting: kolkhoz $*"
        exec kolkhoz "$@"
        ;;
esac
log "starting: $*"
exec "$@"

#!/bin/sh
# Start a runbridge run and stream its events with curl and sed only.
#
#   sh examples/curl/run.sh [ENV]      # ENV defaults to arith
#
# RUNBRIDGE_URL (default http://127.0.0.1:8080) says where the bridge is, RUNBRIDGE_API_KEY (optional)
# which bearer key to send. Prints the raw event stream (id:, event:, data: lines) until the run ends;
# `sh examples/curl/cancel.sh RUN_ID` (from another terminal) cancels it.
set -eu

. "$(dirname "$0")/bridge-curl.sh"
env=${1:-arith}

# The name goes into a JSON string by hand; the bridge's own rule keeps quotes out of it.
case $env in
  '' | *[!A-Za-z0-9_.-]*)
    echo "run.sh: \"$env\" is not an environment name (letters, digits, _ . - only)." >&2
    exit 2
    ;;
esac

answer=$(bridge_curl -sS -H 'Content-Type: application/json' -d "{\"env\":\"$env\"}" "$base/v1/runs")
events_url=$(printf '%s\n' "$answer" | sed -n 's/.*"events_url"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')
if [ -z "$events_url" ]; then
  # Not a 202: the body is the bridge's error, which says what went wrong.
  echo "run.sh: POST $base/v1/runs did not start a run: $answer" >&2
  exit 1
fi

# -N: print each frame as it arrives instead of waiting for curl's output buffer to fill.
bridge_curl -sS -N -H 'Accept: text/event-stream' "$base$events_url"

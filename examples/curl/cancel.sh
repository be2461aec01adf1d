#!/bin/sh
# Cancel a runbridge run with curl.
#
#   sh examples/curl/cancel.sh RUN_ID
#
# Prints the bridge's answer, {"run_id":…,"status":"cancelled"} (or how the run ended, when its end came
# first), once the run has ended. RUNBRIDGE_URL and RUNBRIDGE_API_KEY as for run.sh.
set -eu

. "$(dirname "$0")/bridge-curl.sh"
run_id=${1:-}

case $run_id in
  '' | *[!A-Za-z0-9_-]*)
    echo "cancel.sh: give the id of a run (run_…), e.g. from run.sh's first event." >&2
    exit 2
    ;;
esac

# The POST has no body, but it is sent as JSON all the same: a bridge without API keys refuses a POST
# of any other type (415), which is what keeps other web pages from posting to it.
answer=$(bridge_curl -sS -X POST -H 'Content-Type: application/json' "$base/v1/runs/$run_id/cancel")
case $answer in
  *'"status"'*) printf '%s\n' "$answer" ;;
  *)
    # Not a 202: the body is the bridge's error, which says what went wrong.
    echo "cancel.sh: POST $base/v1/runs/$run_id/cancel did not cancel the run: $answer" >&2
    exit 1
    ;;
esac

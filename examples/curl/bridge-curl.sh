# Sourced by the other scripts here: where the bridge is, and curl with its key.
#
# RUNBRIDGE_URL (default http://127.0.0.1:8080) says where the bridge is, RUNBRIDGE_API_KEY (optional)
# which bearer key to send.

base=${RUNBRIDGE_URL:-http://127.0.0.1:8080}
base=${base%/}

# The key goes to curl on stdin (-H @-), not as an argument, so other users cannot read it in `ps`.
bridge_curl() {
  if [ -n "${RUNBRIDGE_API_KEY:-}" ]; then
    printf 'Authorization: Bearer %s\n' "$RUNBRIDGE_API_KEY" | curl -H @- "$@"
  else
    curl "$@"
  fi
}

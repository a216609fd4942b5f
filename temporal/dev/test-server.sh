#!/bin/sh
# Wrapper that runs the Temporal Java test server (io.temporal:temporal-test-server) from the jars
# resolved by temporal/dev/pom.xml. temporal/dev/resolve.ts (ensureTestServer) copies this file next to
# the jar directory in the cache (~/.cache/payments-platform/temporal-test-server-<version>/) and
# hands that copy to TestWorkflowEnvironment.createTimeSkipping as an 'existing-path' executable.
#
# Usage: temporal-test-server <port> [--enable-time-skipping]
#   The TypeScript SDK calls it with "<port>" followed by any extraArgs. Time skipping does not need
#   the flag: the SDK's time-skipping client unlocks it through the TestService API.
#
# Environment:
#   TEMPORAL_TEST_SERVER_LIB        jar directory (default: ./lib next to this script)
#   TEMPORAL_TEST_SERVER_JAVA_OPTS  extra JVM options
#   JAVA_HOME                       JDK/JRE to use (default: java on PATH)
set -eu

here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
lib=${TEMPORAL_TEST_SERVER_LIB:-$here/lib}

if [ ! -d "$lib" ]; then
  echo "temporal-test-server: jar directory '$lib' not found; run 'npm run temporal:bootstrap' (or ensureTestServer() from temporal/dev/resolve.ts) first" >&2
  exit 1
fi

if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  java=$JAVA_HOME/bin/java
else
  java=java
fi

# Short-lived test JVM: C1 only and the serial GC start fastest. The SDK gives the server 5 s to
# accept connections, so startup time matters.
# shellcheck disable=SC2086
exec "$java" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto \
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  ${TEMPORAL_TEST_SERVER_JAVA_OPTS:-} \
  -cp "$lib/*" io.temporal.testserver.TestServer "$@"

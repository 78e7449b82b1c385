#!/usr/bin/env bash
# gpucheck/run.sh: ground truth from compute-sanitizer (racecheck, synccheck)
# for the HeCBench kernels that syncfix reported. See ARGS.md for the
# arguments chosen for each program and why.
#
# Usage (from the repository root, on a machine with a GPU, nvcc and
# compute-sanitizer on PATH):
#     OUT=/some/empty/dir bash gpucheck/run.sh
# Output: $OUT/<name>.build.txt, $OUT/<name>.racecheck.txt,
#         $OUT/<name>.synccheck.txt, $OUT/summary.txt, $OUT/env.txt
#
# Knobs (environment, all optional):
#   GPUCHECK_BUILD_JOBS  parallel builds              (default 8)
#   GPUCHECK_JOBS        parallel sanitizer runs      (default 4)
#   GPUCHECK_TIMEOUT     seconds per sanitizer run    (default 40)
#   GPUCHECK_DEADLINE    seconds after start when no new sanitizer run starts
#                        and running ones are capped  (default 420)
#   GPUCHECK_ONLY        space-separated run names to restrict to (default: all)
#   GPUCHECK_ARCH        nvcc -arch value             (default sm_90)
#
# Every step runs under `timeout`; the script never stops on a failed step.
set -u

cd "$(dirname "$0")" || exit 1
HERE=$(pwd)
HB=$HERE/hecbench
SELF=$HERE/run.sh

# ---------------------------------------------------------------------------
# What to build: name | folder under hecbench/ (or gpucheck/) | sources | extra nvcc flags and libs
# (flags common to all: -std=c++17 -Xcompiler -Wall -arch=$ARCH -lineinfo -O3,
#  as in each Makefile but with the arch, -lineinfo and -O3 asked for)
builds() {
cat <<'EOF'
control|@GPUCHECK@/control|control.cu|
bscan|bscan-cuda|main.cu|-DBSCAN_GRID_SIZE=120
ced|ced-cuda|main.cu kernel_reference.cu|-lpthread
fwt|fwt-cuda|main.cu reference.cu|-DFWT_LOG2DATA=13
groupnorm|groupnorm-cuda|main.cu|
hungarian|hungarian-cuda|main.cu|-D_n_=256 -D_range_=256 -DGPUCHECK_N_TESTS=1
minibude|minibude-cuda|main.cu kernel.cu|
morphology|morphology-cuda|main.cu morphology.cu|
particles|particles-cuda|main.cu bitonicSort.cu particles.cu|
particles512|particles-cuda|main.cu bitonicSort.cu particles.cu|-DNUM_PARTICLES=512
quantAQLM|quantAQLM-cuda|main.cu|
romberg|romberg-cuda|main.cu|
sad|sad-cuda|main.cu|
scan|scan-cuda|main.cu|
threadfence|threadfence-cuda|main.cu|
score|score-cuda|main.cu|-DSCORE_NUM_CLASSES=16 -DSCORE_BATCH_SIZE=2
sampling|sampling-cuda|main.cu|
aidw|aidw-cuda|main.cu|-Xcompiler -fopenmp -use_fast_math -lgomp
crs|crs-cuda|main.cu galois.cu jerasure.cu GCRSMatrix.cu utils.cu|
matern|matern-cuda|main.cu|
EOF
}

# What to run: run name | build name | program arguments | extra racecheck options | extra synccheck options
# @SRC@ = the program's source folder, @RUN@ = an empty scratch folder (also the cwd).
# Extra racecheck options only limit which launches are instrumented; they are
# dropped when the probe at start-up shows this compute-sanitizer lacks them.
# Order: probably-slow runs first.
runs() {
cat <<'EOF'
hungarian|hungarian|@RUN@/output.txt||
crs|crs|1 1|--launch-count 10|
matern|matern|17 1|--launch-count 3|
scan|scan|300000 1|--kernel-name kns=scan_bcao --launch-count 4|
quantAQLM|quantAQLM||--kernel-name kns=Code1x16MatVec --launch-count 1|
particles|particles|1||
particles512|particles512|1||
morphology|morphology|32 32 256 256 1||
fwt|fwt|1||
aidw|aidw|1 1 1||
minibude|minibude|--deck @SRC@/deck --wgsize 64 --iterations 1 --numposes 1024||
ced|ced|-a 0 -w 0 -r 1 -i 16 -f @SRC@/input/peppa/ -c @RUN@/no-comparison-files/||
sampling|sampling|1||
groupnorm|groupnorm|2 32 16 16 8 1||
score|score|1||
sad|sad|@SRC@/coins.bmp @SRC@/coin.bmp 1||
romberg|romberg|8 64 1||
threadfence|threadfence|1 10000||
bscan|bscan|1||
control|control|all||
control_halfwarp|control|halfwarp||
EOF
}

ARCH=${GPUCHECK_ARCH:-sm_90}
COMMON_FLAGS="-std=c++17 -Xcompiler -Wall -arch=$ARCH -lineinfo -O3"

now() { date +%s; }

selected() {  # is run/build name $1 selected by GPUCHECK_ONLY?
  [ -z "${GPUCHECK_ONLY:-}" ] && return 0
  case " $GPUCHECK_ONLY " in *" $1 "*) return 0 ;; esac
  return 1
}

# ---------------------------------------------------------------------------
# One build (called as: run.sh __build NAME)
do_build() {
  local want=$1 name dir srcs flags srcdir log rc t0
  while IFS='|' read -r name dir srcs flags; do
    [ "$name" = "$want" ] || continue
    srcdir=${dir//@GPUCHECK@/$HERE}
    [ "$srcdir" = "$dir" ] && srcdir=$HB/$dir
    log=$OUT/$name.build.txt
    mkdir -p "$WORK/bin"
    t0=$(now)
    {
      echo "# build $name in $srcdir"
      # shellcheck disable=SC2086  # flags and sources are word lists
      echo "# nvcc $COMMON_FLAGS -o $WORK/bin/$name $srcs $flags"
      # shellcheck disable=SC2086
      (cd "$srcdir" && timeout -k 5 120 nvcc $COMMON_FLAGS -o "$WORK/bin/$name" $srcs $flags)
      rc=$?
      echo "# exit_code=$rc elapsed_s=$(( $(now) - t0 ))"
      if [ "$rc" = 0 ] && [ -x "$WORK/bin/$name" ]; then echo "# BUILD OK"; else echo "# BUILD FAILED"; fi
    } > "$log" 2>&1
    return 0
  done < <(builds)
  echo "unknown build $want" >&2
}

# ---------------------------------------------------------------------------
# One sanitizer run (called as: run.sh __sanitize RUNNAME TOOL INDEX)
do_sanitize() {
  local want=$1 tool=$2 idx=$3
  local name bld args rcopts scopts srcdir dir rundir log cslog t0 rc left lim
  local -a argv extra portopt cmd
  while IFS='|' read -r name bld args rcopts scopts; do
    [ "$name" = "$want" ] || continue
    log=$OUT/$name.$tool.txt
    dir=$(builds | awk -F'|' -v b="$bld" '$1 == b { print $2 }')
    srcdir=${dir//@GPUCHECK@/$HERE}
    [ "$srcdir" = "$dir" ] && srcdir=$HB/$dir
    rundir=$WORK/run/$name.$tool
    mkdir -p "$rundir"
    if [ ! -x "$WORK/bin/$bld" ]; then
      { echo "# $name $tool: not run, build $bld failed (see $bld.build.txt)"
        echo "# exit_code=NA elapsed_s=0 status=NOT_BUILT"; } > "$log"
      return 0
    fi
    left=$(( START_TS + DEADLINE - $(now) ))
    if [ "$left" -lt 10 ]; then
      { echo "# $name $tool: not run, past the script's deadline (GPUCHECK_DEADLINE=$DEADLINE s)"
        echo "# exit_code=NA elapsed_s=0 status=SKIPPED_DEADLINE"; } > "$log"
      return 0
    fi
    lim=$TIMEOUT
    [ "$left" -lt "$lim" ] && lim=$left

    args=${args//@SRC@/$srcdir}
    args=${args//@RUN@/$rundir}
    read -r -a argv <<< "$args"
    extra=()
    if [ "$tool" = racecheck ]; then
      [ "$CS_FILTERS" = yes ] && [ -n "$rcopts" ] && read -r -a extra <<< "$rcopts"
      cmd=(compute-sanitizer --tool racecheck --racecheck-report hazard --print-limit 20)
    else
      [ "$CS_FILTERS" = yes ] && [ -n "$scopts" ] && read -r -a extra <<< "$scopts"
      cmd=(compute-sanitizer --tool synccheck --print-limit 20)
    fi
    portopt=()
    # distinct port ranges so that parallel sanitizer instances do not collide
    [ "$CS_PORT" = yes ] && portopt=(--port $(( 50000 + 16 * idx )))
    cslog=$rundir/sanitizer.log
    # ${a[@]+"${a[@]}"}: empty arrays are fine under set -u on old bash too
    cmd+=(${portopt[@]+"${portopt[@]}"} ${extra[@]+"${extra[@]}"} --log-file "$cslog" "$WORK/bin/$bld" ${argv[@]+"${argv[@]}"})

    t0=$(now)
    {
      echo "# run=$name build=$bld tool=$tool timeout=${lim}s cwd=$rundir"
      echo "# command: ${cmd[*]}"
      echo "# ---- program output (stdout+stderr) ----"
    } > "$log"
    (cd "$rundir" && timeout -k 5 "$lim" "${cmd[@]}" < /dev/null >> "$log" 2>&1)
    rc=$?
    {
      if [ -s "$rundir/output.txt" ]; then
        echo "# ---- program output file output.txt (first 60 lines) ----"
        head -n 60 "$rundir/output.txt"
      fi
      echo "# ---- compute-sanitizer output ----"
      if [ -f "$cslog" ]; then
        head -n 4000 "$cslog"
        [ "$(wc -l < "$cslog")" -gt 4000 ] && echo "(sanitizer log cut at 4000 of $(wc -l < "$cslog") lines)"
      else
        echo "(no sanitizer log file)"
      fi
      local status=DONE
      if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then status=TIMEOUT; fi
      echo "# exit_code=$rc elapsed_s=$(( $(now) - t0 )) status=$status"
    } >> "$log" 2>&1
    return 0
  done < <(runs)
  echo "unknown run $want" >&2
}

# ---------------------------------------------------------------------------
# Summary helpers
sum_racecheck() {  # file
  local f=$1 line n raw war waw at
  line=$(grep -h 'RACECHECK SUMMARY' "$f" 2>/dev/null | sed 's/^=* *//' | tr '\n' ' ')
  n=$(grep -ciE 'potential (raw|war|waw) hazard|race reported' "$f")
  raw=$(grep -ciE 'potential raw hazard' "$f")
  war=$(grep -ciE 'potential war hazard' "$f")
  waw=$(grep -ciE 'potential waw hazard' "$f")
  at=$(grep -E '^=+ ' "$f" | grep -oE '[A-Za-z0-9_.+-]+\.(cu|cuh|h|hpp):[0-9]+:[^(]*' | sort | uniq -c | sort -rn | head -6 |
       awk '{c=$1; $1=""; sub(/^ /,""); printf "%s%s x%s", (NR>1?"; ":""), $0, c}')
  printf '%s| printed hazards=%s (RAW=%s WAR=%s WAW=%s)' "${line:-no RACECHECK SUMMARY line}" "$n" "$raw" "$war" "$waw"
  [ -n "$at" ] && printf ' | at: %s' "$at"
  return 0
}

sum_synccheck() {  # file
  local f=$1 line n at
  line=$(grep -h 'ERROR SUMMARY' "$f" 2>/dev/null | sed 's/^=* *//' | tr '\n' ' ')
  n=$(grep -ciE 'barrier error|divergent thread|invalid arguments|invalid .*sync' "$f")
  at=$(grep -E '^=+ ' "$f" | grep -oE '[A-Za-z0-9_.+-]+\.(cu|cuh|h|hpp):[0-9]+:[^(]*' | sort | uniq -c | sort -rn | head -6 |
       awk '{c=$1; $1=""; sub(/^ /,""); printf "%s%s x%s", (NR>1?"; ":""), $0, c}')
  printf '%s| barrier-error lines=%s' "${line:-no ERROR SUMMARY line}" "$n"
  [ -n "$at" ] && printf ' | at: %s' "$at"
  return 0
}

tail_status() {  # file -> "exit=.. t=..s status"
  local f=$1 l
  [ -f "$f" ] || { echo "missing"; return 0; }
  l=$(grep -E '^# exit_code=' "$f" | tail -1)
  [ -n "$l" ] || { echo "unfinished"; return 0; }
  echo "$l" | sed -E 's/^# exit_code=([^ ]*) elapsed_s=([^ ]*) status=(.*)$/exit=\1 t=\2s \3/'
}

write_summary() {
  local s=$OUT/summary.txt name bld b f
  {
    echo "gpucheck summary  ($(date -u '+%Y-%m-%d %H:%M:%S UTC'), arch=$ARCH, timeout=${TIMEOUT}s, filters=$CS_FILTERS)"
    echo "GPU: $(nvidia-smi -L 2>/dev/null | head -1)"
    echo "CUDA: $(nvcc --version 2>/dev/null | tail -1)"
    echo "total wall time: $(( $(now) - START_TS ))s"
    echo
    while IFS='|' read -r name bld _; do
      selected "$name" || continue
      f=$OUT/$bld.build.txt
      if grep -q '^# BUILD OK' "$f" 2>/dev/null; then b=ok; else b=FAILED; fi
      echo "== $name  (build $bld: $b)"
      f=$OUT/$name.racecheck.txt
      if [ -f "$f" ]; then
        echo "   racecheck [$(tail_status "$f")] $(sum_racecheck "$f")"
      else
        echo "   racecheck [missing]"
      fi
      f=$OUT/$name.synccheck.txt
      if [ -f "$f" ]; then
        echo "   synccheck [$(tail_status "$f")] $(sum_synccheck "$f")"
      else
        echo "   synccheck [missing]"
      fi
    done < <(runs)
  } > "$s" 2>&1
}

# ---------------------------------------------------------------------------
case "${1:-}" in
  __build)    do_build "$2"; exit 0 ;;
  __sanitize) do_sanitize "$2" "$3" "$4"; exit 0 ;;
esac

: "${OUT:?set OUT to the output folder}"
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
START_TS=$(now)
TIMEOUT=${GPUCHECK_TIMEOUT:-40}
DEADLINE=${GPUCHECK_DEADLINE:-420}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpucheck.XXXXXX")
export OUT WORK START_TS TIMEOUT DEADLINE GPUCHECK_ONLY="${GPUCHECK_ONLY:-}" GPUCHECK_ARCH="$ARCH"

{
  echo "== nvidia-smi -L"; timeout 20 nvidia-smi -L
  echo "== nvcc --version | tail -2"; timeout 20 nvcc --version | tail -2
  echo "== compute-sanitizer --version"; timeout 20 compute-sanitizer --version
  echo "== work dir: $WORK"
} 2>&1 | tee "$OUT/env.txt"

# Which compute-sanitizer options exist here? (listed in --help, then tried on
# the control program once it is built)
timeout 20 compute-sanitizer --help > "$OUT/compute-sanitizer-help.txt" 2>&1
CS_PORT=no
grep -q -- '--port' "$OUT/compute-sanitizer-help.txt" && CS_PORT=probe
CS_FILTERS=no
if grep -q -- '--kernel-name' "$OUT/compute-sanitizer-help.txt" &&
   grep -q -- '--launch-count' "$OUT/compute-sanitizer-help.txt"; then
  CS_FILTERS=probe
fi

# ---- builds, in parallel
echo "== building (${GPUCHECK_BUILD_JOBS:-8} at a time) ..."
needed_builds() {  # control (for the probe) plus the builds of the selected runs
  echo control
  runs | while IFS='|' read -r r b _; do selected "$r" && echo "$b"; done
}
needed_builds | sort -u | xargs -P "${GPUCHECK_BUILD_JOBS:-8}" -I{} bash "$SELF" __build {}
for f in "$OUT"/*.build.txt; do
  printf '   %-14s %s\n' "$(basename "$f" .build.txt)" "$(grep -E '^# BUILD' "$f" | tail -1)"
done
echo "   builds done after $(( $(now) - START_TS ))s"

# ---- try the optional options on the control program; keep those that work
probe() {  # name, extra options...: 0 when racecheck runs control_clean with them
  local name=$1 prc
  shift
  [ -x "$WORK/bin/control" ] || return 1
  (cd "$WORK" && timeout -k 5 20 compute-sanitizer --tool racecheck --racecheck-report hazard \
      "$@" "$WORK/bin/control" clean) > "$OUT/probe-$name.txt" 2>&1
  prc=$?
  echo "# exit_code=$prc" >> "$OUT/probe-$name.txt"
  [ "$prc" = 0 ] && grep -q 'RACECHECK SUMMARY' "$OUT/probe-$name.txt"
}
if [ "$CS_PORT" = probe ]; then
  if probe port --port 50990; then CS_PORT=yes; else CS_PORT=no; fi
fi
if [ "$CS_FILTERS" = probe ]; then
  if probe filters --kernel-name kns=control_clean --launch-count 1; then CS_FILTERS=yes; else CS_FILTERS=no; fi
fi
export CS_PORT CS_FILTERS
echo "== launch filters (--kernel-name/--launch-count) usable: $CS_FILTERS; --port: $CS_PORT"

# ---- sanitizer runs, GPUCHECK_JOBS at a time
echo "== sanitizer runs (${GPUCHECK_JOBS:-4} at a time, ${TIMEOUT}s each, deadline ${DEADLINE}s) ..."
i=0
runs | cut -d'|' -f1 | while read -r r; do
  selected "$r" || continue
  for tool in racecheck synccheck; do
    echo "$r $tool $i"
    i=$((i + 1))
  done
done | xargs -P "${GPUCHECK_JOBS:-4}" -L 1 bash "$SELF" __sanitize

write_summary
echo "== done after $(( $(now) - START_TS ))s; summary:"
cat "$OUT/summary.txt"
rm -rf "$WORK"
exit 0

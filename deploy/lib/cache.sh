# Sourced by the scripts that make Switchboard's cached roots, kernels and venvs.
#
# cache_lock PATH: holds an exclusive lock on PATH.lock until the calling script exits, so that two
# runs making the same cached thing at once (a stage, and deploy/lib/prewarm.sh making it ahead of
# time in the background) make it once: the second waits for the first, then finds it made. Call it
# after the cache key is known and before looking for the finished result.
cache_lock() {
    mkdir -p "$(dirname "$1")"
    exec {cache_lock_fd}>"$1.lock"
    flock "$cache_lock_fd"
}

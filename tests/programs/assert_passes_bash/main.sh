#!/bin/bash
# $1 is a space-separated list
f() {
    local doubled=()
    for v in $1; do
        doubled+=($((v * 2)))
    done
    echo "${doubled[*]} ${#doubled[@]}"
}

candidate() {
    f "$@"
}

set -e
run_test() {
    [[ $(candidate "1 2 3") = "2 4 6 3" ]]
}

run_test

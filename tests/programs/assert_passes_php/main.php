<?php
function f($values) {
    return [array_map(fn($v) => $v * 2, $values), count($values)];
}

function candidate(...$args) {
    return f(...$args);
}

function test(): void {
    if (candidate([1, 2, 3]) !== [[2, 4, 6], 3]) { throw new Exception("Test failed!"); }
}

test();

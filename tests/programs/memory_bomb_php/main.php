<?php
$hog = [];
while (true) {
    $hog[] = str_repeat("x", 16 << 20) . count($hog);  // 16 MiB at a time
}

<?php
$line = str_repeat("spam ", 100);
while (true) {
    echo $line, "\n";
}

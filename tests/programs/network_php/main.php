<?php
foreach ([["1.1.1.1", 53], ["127.0.0.1", 22]] as [$host, $port]) {
    $socket = @fsockopen($host, $port, $errno, $errstr, 1);
    if ($socket) {
        fclose($socket);
        echo "CONNECTED $host\n";
    } else {
        echo "no network $host $errstr\n";
    }
}

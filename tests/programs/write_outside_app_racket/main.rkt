#lang racket/base

(for ([path '("/usr/surge-escape" "/etc/surge-escape" "/surge-escape" "/opt/surge-runner/escape" "/root/surge-escape")])
  (with-handlers ([exn:fail:filesystem? (lambda (e) (printf "refused ~a\n" path))])
    (with-output-to-file path (lambda () (display "x")) #:exists 'truncate)
    (printf "WROTE ~a\n" path)))

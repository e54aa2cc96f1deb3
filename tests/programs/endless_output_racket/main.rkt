#lang racket/base
(define line (apply string-append (for/list ([i 100]) "spam ")))
(let loop ()
  (displayln line)
  (loop))

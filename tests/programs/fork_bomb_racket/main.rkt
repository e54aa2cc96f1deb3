#lang racket/base
;; Racket has no fork: every copy starts another copy of itself, and goes on doing so.
(require racket/system)
(define racket (find-executable-path "racket"))
(define self (variable-reference->module-source (#%variable-reference)))
(let loop ()
  (with-handlers ([exn:fail? void])
    (process* racket self))
  (loop))

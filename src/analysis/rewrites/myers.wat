;; The search of myers.ts (compare, bisect and its two rounds), in WebAssembly: the same work list, the same middle
;; snakes, the same change flags, so both give the same alignment of every input (test/myers-engines.test.ts). The
;; search runs once per diff, cold: as JavaScript it runs in the interpreter until V8 has compiled it, and that
;; first run is most of its cost; WebAssembly is compiled before it runs.
;;
;; Memory (set by the caller, myersEngine.ts, which grows it to fit): A at $a and B at $b (i32 per token), the change
;; flags of each at $ca and $cb (u8 per token, at index + 1, with the zero sentinels of myers.ts), the diagonals V1 at
;; $v1 and V2 at $v2 (i32 each, room for 2 · ((n + m + 1) >> 1) + 3), the work list at $stack (4 i32 per pending
;; range, room for n + 1 ranges).
;;
;; align(n, m, capRounds) → 1 when the flags are written, 0 when the first search needs more rounds than
;; `capRounds` (-1: no cap), as compare() returns false for a cap reached.
(module
  (memory (export "memory") 1)
  (global $a (mut i32) (i32.const 0))
  (global $b (mut i32) (i32.const 0))
  (global $ca (mut i32) (i32.const 0))
  (global $cb (mut i32) (i32.const 0))
  (global $v1 (mut i32) (i32.const 0))
  (global $v2 (mut i32) (i32.const 0))
  (global $stack (mut i32) (i32.const 0))
  ;; The rounds' state of one bisect (SEARCH in myers.ts): where each direction's diagonals start and end, the meet.
  (global $k1start (mut i32) (i32.const 0))
  (global $k1end (mut i32) (i32.const 0))
  (global $k2start (mut i32) (i32.const 0))
  (global $k2end (mut i32) (i32.const 0))
  (global $meetX (mut i32) (i32.const 0))
  (global $meetY (mut i32) (i32.const 0))

  (func (export "layout") (param $a i32) (param $b i32) (param $ca i32) (param $cb i32) (param $v1 i32) (param $v2 i32)
        (param $stack i32)
    (global.set $a (local.get $a))
    (global.set $b (local.get $b))
    (global.set $ca (local.get $ca))
    (global.set $cb (local.get $cb))
    (global.set $v1 (local.get $v1))
    (global.set $v2 (local.get $v2))
    (global.set $stack (local.get $stack)))

  ;; Token i of A, of B.
  (func $at (param $i i32) (result i32)
    (i32.load (i32.add (global.get $a) (i32.shl (local.get $i) (i32.const 2)))))
  (func $bt (param $j i32) (result i32)
    (i32.load (i32.add (global.get $b) (i32.shl (local.get $j) (i32.const 2)))))

  ;; Flags [from, to) of A (or of B), as changed: index i is flag i + 1.
  (func $mark (param $flags i32) (param $from i32) (param $to i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $from) (local.get $to)))
        (i32.store8 (i32.add (local.get $flags) (i32.add (local.get $from) (i32.const 1))) (i32.const 1))
        (local.set $from (i32.add (local.get $from) (i32.const 1)))
        (br $next))))

  ;; V[k] of the diagonals at $v.
  (func $vget (param $v i32) (param $k i32) (result i32)
    (i32.load (i32.add (local.get $v) (i32.shl (local.get $k) (i32.const 2)))))
  (func $vset (param $v i32) (param $k i32) (param $x i32)
    (i32.store (i32.add (local.get $v) (i32.shl (local.get $k) (i32.const 2))) (local.get $x)))

  ;; forwardRound of myers.ts: 1 when the paths met (at $meetX, $meetY).
  (func $forward (param $al i32) (param $bl i32) (param $n i32) (param $m i32) (param $d i32) (param $offset i32)
        (param $length i32) (param $delta i32) (param $front i32) (result i32)
    (local $k1 i32) (local $k1o i32) (local $x1 i32) (local $y1 i32) (local $k2o i32)
    (local.set $k1 (i32.add (i32.sub (i32.const 0) (local.get $d)) (global.get $k1start)))
    (block $done
      (loop $next
        (br_if $done (i32.gt_s (local.get $k1) (i32.sub (local.get $d) (global.get $k1end))))
        (local.set $k1o (i32.add (local.get $offset) (local.get $k1)))
        (if (i32.or (i32.eq (local.get $k1) (i32.sub (i32.const 0) (local.get $d)))
                    (i32.and (i32.ne (local.get $k1) (local.get $d))
                             (i32.lt_s (call $vget (global.get $v1) (i32.sub (local.get $k1o) (i32.const 1)))
                                       (call $vget (global.get $v1) (i32.add (local.get $k1o) (i32.const 1))))))
          (then (local.set $x1 (call $vget (global.get $v1) (i32.add (local.get $k1o) (i32.const 1)))))
          (else (local.set $x1 (i32.add (call $vget (global.get $v1) (i32.sub (local.get $k1o) (i32.const 1))) (i32.const 1)))))
        (local.set $y1 (i32.sub (local.get $x1) (local.get $k1)))
        (block $snake
          (loop $slide
            (br_if $snake (i32.ge_s (local.get $x1) (local.get $n)))
            (br_if $snake (i32.ge_s (local.get $y1) (local.get $m)))
            (br_if $snake (i32.ne (call $at (i32.add (local.get $al) (local.get $x1)))
                                  (call $bt (i32.add (local.get $bl) (local.get $y1)))))
            (local.set $x1 (i32.add (local.get $x1) (i32.const 1)))
            (local.set $y1 (i32.add (local.get $y1) (i32.const 1)))
            (br $slide)))
        (call $vset (global.get $v1) (local.get $k1o) (local.get $x1))
        (if (i32.gt_s (local.get $x1) (local.get $n))
          (then (global.set $k1end (i32.add (global.get $k1end) (i32.const 2))))
          (else
            (if (i32.gt_s (local.get $y1) (local.get $m))
              (then (global.set $k1start (i32.add (global.get $k1start) (i32.const 2))))
              (else
                (if (local.get $front)
                  (then
                    (local.set $k2o (i32.sub (i32.add (local.get $offset) (local.get $delta)) (local.get $k1)))
                    (if (i32.and (i32.ge_s (local.get $k2o) (i32.const 0)) (i32.lt_s (local.get $k2o) (local.get $length)))
                      (then
                        (if (i32.ne (call $vget (global.get $v2) (local.get $k2o)) (i32.const -1))
                          (then
                            (if (i32.ge_s (local.get $x1) (i32.sub (local.get $n) (call $vget (global.get $v2) (local.get $k2o))))
                              (then
                                (global.set $meetX (local.get $x1))
                                (global.set $meetY (local.get $y1))
                                (return (i32.const 1))))))))))))))
        (local.set $k1 (i32.add (local.get $k1) (i32.const 2)))
        (br $next)))
    (i32.const 0))

  ;; backwardRound of myers.ts: 1 when the paths met (at $meetX, $meetY).
  (func $backward (param $ah i32) (param $bh i32) (param $n i32) (param $m i32) (param $d i32) (param $offset i32)
        (param $length i32) (param $delta i32) (param $front i32) (result i32)
    (local $k2 i32) (local $k2o i32) (local $x2 i32) (local $y2 i32) (local $k1o i32) (local $x1 i32)
    (local.set $k2 (i32.add (i32.sub (i32.const 0) (local.get $d)) (global.get $k2start)))
    (block $done
      (loop $next
        (br_if $done (i32.gt_s (local.get $k2) (i32.sub (local.get $d) (global.get $k2end))))
        (local.set $k2o (i32.add (local.get $offset) (local.get $k2)))
        (if (i32.or (i32.eq (local.get $k2) (i32.sub (i32.const 0) (local.get $d)))
                    (i32.and (i32.ne (local.get $k2) (local.get $d))
                             (i32.lt_s (call $vget (global.get $v2) (i32.sub (local.get $k2o) (i32.const 1)))
                                       (call $vget (global.get $v2) (i32.add (local.get $k2o) (i32.const 1))))))
          (then (local.set $x2 (call $vget (global.get $v2) (i32.add (local.get $k2o) (i32.const 1)))))
          (else (local.set $x2 (i32.add (call $vget (global.get $v2) (i32.sub (local.get $k2o) (i32.const 1))) (i32.const 1)))))
        (local.set $y2 (i32.sub (local.get $x2) (local.get $k2)))
        (block $snake
          (loop $slide
            (br_if $snake (i32.ge_s (local.get $x2) (local.get $n)))
            (br_if $snake (i32.ge_s (local.get $y2) (local.get $m)))
            (br_if $snake (i32.ne (call $at (i32.sub (i32.sub (local.get $ah) (local.get $x2)) (i32.const 1)))
                                  (call $bt (i32.sub (i32.sub (local.get $bh) (local.get $y2)) (i32.const 1)))))
            (local.set $x2 (i32.add (local.get $x2) (i32.const 1)))
            (local.set $y2 (i32.add (local.get $y2) (i32.const 1)))
            (br $slide)))
        (call $vset (global.get $v2) (local.get $k2o) (local.get $x2))
        (if (i32.gt_s (local.get $x2) (local.get $n))
          (then (global.set $k2end (i32.add (global.get $k2end) (i32.const 2))))
          (else
            (if (i32.gt_s (local.get $y2) (local.get $m))
              (then (global.set $k2start (i32.add (global.get $k2start) (i32.const 2))))
              (else
                (if (i32.eqz (local.get $front))
                  (then
                    (local.set $k1o (i32.sub (i32.add (local.get $offset) (local.get $delta)) (local.get $k2)))
                    (if (i32.and (i32.ge_s (local.get $k1o) (i32.const 0)) (i32.lt_s (local.get $k1o) (local.get $length)))
                      (then
                        (if (i32.ne (call $vget (global.get $v1) (local.get $k1o)) (i32.const -1))
                          (then
                            (local.set $x1 (call $vget (global.get $v1) (local.get $k1o)))
                            (if (i32.ge_s (local.get $x1) (i32.sub (local.get $n) (local.get $x2)))
                              (then
                                (global.set $meetX (local.get $x1))
                                (global.set $meetY (i32.sub (i32.add (local.get $offset) (local.get $x1)) (local.get $k1o)))
                                (return (i32.const 1))))))))))))))
        (local.set $k2 (i32.add (local.get $k2) (i32.const 2)))
        (br $next)))
    (i32.const 0))

  ;; bisect of myers.ts: 1 FOUND (at $meetX, $meetY), 0 DISJOINT, -1 CAPPED. $cap: the most rounds (-1: none).
  (func $bisect (param $al i32) (param $ah i32) (param $bl i32) (param $bh i32) (param $cap i32) (result i32)
    (local $n i32) (local $m i32) (local $maxD i32) (local $rounds i32) (local $offset i32) (local $length i32)
    (local $delta i32) (local $front i32) (local $d i32) (local $k i32)
    (local.set $n (i32.sub (local.get $ah) (local.get $al)))
    (local.set $m (i32.sub (local.get $bh) (local.get $bl)))
    (local.set $maxD (i32.shr_s (i32.add (i32.add (local.get $n) (local.get $m)) (i32.const 1)) (i32.const 1)))
    (local.set $rounds (local.get $maxD))
    (if (i32.and (i32.ge_s (local.get $cap) (i32.const 0)) (i32.lt_s (local.get $cap) (local.get $maxD)))
      (then (local.set $rounds (local.get $cap))))
    (local.set $offset (i32.add (local.get $rounds) (i32.const 1)))
    (local.set $length (i32.add (i32.shl (local.get $rounds) (i32.const 1)) (i32.const 3)))
    (local.set $k (i32.const 0))
    (block $filled
      (loop $fill
        (br_if $filled (i32.ge_s (local.get $k) (local.get $length)))
        (call $vset (global.get $v1) (local.get $k) (i32.const -1))
        (call $vset (global.get $v2) (local.get $k) (i32.const -1))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (br $fill)))
    (call $vset (global.get $v1) (i32.add (local.get $offset) (i32.const 1)) (i32.const 0))
    (call $vset (global.get $v2) (i32.add (local.get $offset) (i32.const 1)) (i32.const 0))
    (local.set $delta (i32.sub (local.get $n) (local.get $m)))
    (local.set $front (i32.and (local.get $delta) (i32.const 1)))
    (global.set $k1start (i32.const 0))
    (global.set $k1end (i32.const 0))
    (global.set $k2start (i32.const 0))
    (global.set $k2end (i32.const 0))
    (local.set $d (i32.const 0))
    (block $searched
      (loop $round
        (br_if $searched (i32.ge_s (local.get $d) (local.get $rounds)))
        (if (call $forward (local.get $al) (local.get $bl) (local.get $n) (local.get $m) (local.get $d) (local.get $offset)
                           (local.get $length) (local.get $delta) (local.get $front))
          (then (return (i32.const 1))))
        (if (call $backward (local.get $ah) (local.get $bh) (local.get $n) (local.get $m) (local.get $d) (local.get $offset)
                            (local.get $length) (local.get $delta) (local.get $front))
          (then (return (i32.const 1))))
        (local.set $d (i32.add (local.get $d) (i32.const 1)))
        (br $round)))
    (if (result i32) (i32.lt_s (local.get $rounds) (local.get $maxD)) (then (i32.const -1)) (else (i32.const 0))))

  ;; compare of myers.ts over all of A and B: the work list of ranges, each trimmed of its common ends, then
  ;; marked whole or split at its middle snake. Only the first search is capped.
  (func (export "align") (param $n i32) (param $m i32) (param $cap i32) (result i32)
    (local $sp i32) (local $al i32) (local $ah i32) (local $bl i32) (local $bh i32) (local $first i32) (local $found i32)
    (local $x i32) (local $y i32)
    (i32.store (global.get $stack) (i32.const 0))
    (i32.store offset=4 (global.get $stack) (local.get $n))
    (i32.store offset=8 (global.get $stack) (i32.const 0))
    (i32.store offset=12 (global.get $stack) (local.get $m))
    (local.set $sp (i32.const 1))
    (local.set $first (i32.const 1))
    (block $empty
      (loop $next
        (br_if $empty (i32.eqz (local.get $sp)))
        (local.set $sp (i32.sub (local.get $sp) (i32.const 1)))
        (local.set $x (i32.add (global.get $stack) (i32.shl (local.get $sp) (i32.const 4))))
        (local.set $al (i32.load (local.get $x)))
        (local.set $ah (i32.load offset=4 (local.get $x)))
        (local.set $bl (i32.load offset=8 (local.get $x)))
        (local.set $bh (i32.load offset=12 (local.get $x)))
        (block $head
          (loop $trim
            (br_if $head (i32.ge_s (local.get $al) (local.get $ah)))
            (br_if $head (i32.ge_s (local.get $bl) (local.get $bh)))
            (br_if $head (i32.ne (call $at (local.get $al)) (call $bt (local.get $bl))))
            (local.set $al (i32.add (local.get $al) (i32.const 1)))
            (local.set $bl (i32.add (local.get $bl) (i32.const 1)))
            (br $trim)))
        (block $tail
          (loop $trim
            (br_if $tail (i32.ge_s (local.get $al) (local.get $ah)))
            (br_if $tail (i32.ge_s (local.get $bl) (local.get $bh)))
            (br_if $tail (i32.ne (call $at (i32.sub (local.get $ah) (i32.const 1))) (call $bt (i32.sub (local.get $bh) (i32.const 1)))))
            (local.set $ah (i32.sub (local.get $ah) (i32.const 1)))
            (local.set $bh (i32.sub (local.get $bh) (i32.const 1)))
            (br $trim)))
        (if (i32.eq (local.get $al) (local.get $ah))
          (then
            (call $mark (global.get $cb) (local.get $bl) (local.get $bh))
            (local.set $first (i32.const 0))
            (br $next)))
        (if (i32.eq (local.get $bl) (local.get $bh))
          (then
            (call $mark (global.get $ca) (local.get $al) (local.get $ah))
            (local.set $first (i32.const 0))
            (br $next)))
        (local.set $found (call $bisect (local.get $al) (local.get $ah) (local.get $bl) (local.get $bh)
                                        (select (local.get $cap) (i32.const -1) (local.get $first))))
        (local.set $first (i32.const 0))
        (if (i32.lt_s (local.get $found) (i32.const 0)) (then (return (i32.const 0))))
        (if (i32.eqz (local.get $found))
          (then
            (call $mark (global.get $ca) (local.get $al) (local.get $ah))
            (call $mark (global.get $cb) (local.get $bl) (local.get $bh))
            (br $next)))
        ;; Split at the meet: the right part pushed first, so the left part is taken next (as in myers.ts).
        (local.set $x (i32.add (local.get $al) (global.get $meetX)))
        (local.set $y (i32.add (local.get $bl) (global.get $meetY)))
        (call $push (local.get $sp) (local.get $x) (local.get $ah) (local.get $y) (local.get $bh))
        (call $push (i32.add (local.get $sp) (i32.const 1)) (local.get $al) (local.get $x) (local.get $bl) (local.get $y))
        (local.set $sp (i32.add (local.get $sp) (i32.const 2)))
        (br $next)))
    (i32.const 1))

  ;; Range k of the work list.
  (func $push (param $k i32) (param $al i32) (param $ah i32) (param $bl i32) (param $bh i32)
    (local $p i32)
    (local.set $p (i32.add (global.get $stack) (i32.shl (local.get $k) (i32.const 4))))
    (i32.store (local.get $p) (local.get $al))
    (i32.store offset=4 (local.get $p) (local.get $ah))
    (i32.store offset=8 (local.get $p) (local.get $bl))
    (i32.store offset=12 (local.get $p) (local.get $bh))))

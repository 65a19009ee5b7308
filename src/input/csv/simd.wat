;; The SIMD engine: the record scanner's inner loop, and kernel rows in batches, in WebAssembly SIMD. scan.ts owns
;; the semantics and calls record(); the kernel-table reader configures rows() through scan.ts. Assembled by
;; scripts/wasm.mjs, which first replaces each double-braced NAME below by its number in the layout table there (the same
;; numbers reach TypeScript as simdLayout.ts), into simdWasm.ts.
;;
;; The algorithm.
;; 1. record(p, end, limit) scans one CSV record from p. Sixteen bytes are loaded at a time and compared with
;;    `,` `"` and LF at once (i8x16.eq, then i8x16.bitmask: one bit per byte); the lowest set bit (ctz) is the
;;    next byte that matters, so a plain cell costs one load per sixteen bytes. For the first `limit` cells it
;;    writes where each starts and ends and its flags (as scan.ts's RowView holds them); past them it only counts
;;    commas (popcnt of the comma mask below the first quote or LF), which is most of the speed on wide tables.
;;    A quoted cell ($quoted) is searched for quotes and LFs the same way; `""` is an escape, a lone quote ends it.
;;    It handles what a profile is made of: plain cells, quoted cells with `""`, commas and LFs inside quotes,
;;    CRLF. Anything else it leaves to the JavaScript scanner, which then scans that one record itself:
;;      -1  the record does not end before `end` (more data is needed, or it is the last record of the input);
;;      -2  the record is irregular (text after a closing quote, a CR after one not followed by LF, more than
;;          CAP cells to locate).
;;    So the two engines agree on every input: this one is only a faster path through the common records.
;; 2. rows(p, end), after configure(), calls record() on each record from p while it is a plain kernel row: as
;;    many cells as the header, a duration that $ticks reads as a plain decimal (exactly as parseTicks does, in
;;    integer ticks of 1e-4 µs, below 2^31), a Step Id that $step reads as a plain integer or empty, and a group
;;    key (the raw bytes of the key cells, and of the shapes cell) already in the key table. Per row it writes the
;;    key's id, the step, the ticks and, when configured, where the start-time cell is (JavaScript parses it
;;    exactly) and the Stream ID ($step's plain integer, else -1: none). It stops at the first other record or
;;    after MAX_BATCH rows; the JavaScript reader reads that record the slow way (and gives a new key its id with
;;    keyId()). So every number a batch holds is what the JavaScript parsers give.
;; 3. The key table is open addressing over KEY_SLOTS slots (linear probing; a slot holds entry + 1, 0: empty).
;;    The hash multiplies in eight bytes at a time (the last ones masked, with the length) and folds the high bits
;;    down; an entry keeps the hash, the two span lengths and where its bytes are in the arena, so a lookup
;;    compares hash and lengths before bytes. Full (MAX_KEYS keys or ARENA_LIMIT bytes), keyId() says -1 and the
;;    caller empties it (resetKeys) and gives ids anew.
;;
;; Memory (offsets in bytes, see simdLayout.ts): META (cells and line feeds of the last record, rows and line
;; feeds of the last batch), the located cells (STARTS, ENDS, FLAGS: 1 quoted, 3 quoted with "" escapes), the
;; batch (IDS, STEPS with -2147483648 for none, TICKS, START_AT, START_END, STREAMS with -1 for none), the key
;; table (SLOTS, HASHES, OFFSETS, LEN1, LEN2 with -1 for no second span, ARENA), then the data buffer at DATA.
;; The caller writes a line feed at `end` (a sentinel that stops every search) and keeps 32 readable bytes past
;; it, since searches load sixteen bytes at a time.

(module
  (memory (export "memory") 2)

  ;; Set by $quoted: where the closing quote is, the cell's flags, line feeds seen inside.
  (global $close (mut i32) (i32.const 0))
  (global $qflags (mut i32) (i32.const 0))
  (global $nl (mut i32) (i32.const 0))

  ;; A quoted cell opening at p. Returns the position after it: at the comma or line feed that follows the
  ;; closing quote (past a CR before that line feed); -1 if the data ends first; -2 for text after the quote.
  ;; The quotes and line feeds of each sixteen bytes are taken from one load, lowest first.
  (func $quoted (param $p i32) (param $end i32) (result i32)
    (local $q i32) (local $v v128) (local $qm i32) (local $lm i32) (local $m i32) (local $k i32) (local $x i32)
    (local $c i32) (local $flags i32)
    (local.set $flags (i32.const 1))
    (local.set $q (i32.add (local.get $p) (i32.const 1)))
    (block $closed
      (loop $load
        (local.set $v (v128.load align=1 (local.get $q)))
        (local.set $qm (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))))
        (local.set $lm (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10))))
        (loop $bits
          (local.set $m (i32.or (local.get $qm) (local.get $lm)))
          (if (i32.eqz (local.get $m))
            (then
              (local.set $q (i32.add (local.get $q) (i32.const 16)))
              (br $load)))
          (local.set $k (i32.ctz (local.get $m)))
          (local.set $x (i32.add (local.get $q) (local.get $k)))
          (if (i32.ge_u (local.get $x) (local.get $end)) (then (return (i32.const -1))))
          (if (i32.and (i32.shr_u (local.get $lm) (local.get $k)) (i32.const 1))
            (then
              (global.set $nl (i32.add (global.get $nl) (i32.const 1)))
              (local.set $lm (i32.and (local.get $lm) (i32.sub (local.get $lm) (i32.const 1))))
              (br $bits)))
          ;; A quote at x: the byte after it decides.
          (if (i32.ge_u (i32.add (local.get $x) (i32.const 1)) (local.get $end)) (then (return (i32.const -1))))
          (local.set $c (i32.load8_u offset=1 (local.get $x)))
          (br_if $closed (i32.ne (local.get $c) (i32.const 34)))
          ;; "" stands for a quote: drop both from the mask (or load on past them when the second is beyond it).
          (local.set $flags (i32.const 3))
          (if (i32.eq (local.get $k) (i32.const 15))
            (then
              (local.set $q (i32.add (local.get $x) (i32.const 2)))
              (br $load)))
          (local.set $qm (i32.and (local.get $qm) (i32.xor (i32.shl (i32.const 3) (local.get $k)) (i32.const -1))))
          (br $bits))))
    (global.set $close (local.get $x))
    (global.set $qflags (local.get $flags))
    (if (i32.or (i32.eq (local.get $c) (i32.const 44)) (i32.eq (local.get $c) (i32.const 10)))
      (then (return (i32.add (local.get $x) (i32.const 1)))))
    (if (i32.eq (local.get $c) (i32.const 13))
      (then
        (if (i32.ge_u (i32.add (local.get $x) (i32.const 2)) (local.get $end)) (then (return (i32.const -1))))
        (if (i32.eq (i32.load8_u offset=2 (local.get $x)) (i32.const 10))
          (then (return (i32.add (local.get $x) (i32.const 2)))))))
    (i32.const -2))

  ;; One record from p (p < end). Returns the position after its line feed, -1 or -2 (see the top).
  (func $record (export "record") (param $p i32) (param $end i32) (param $limit i32) (result i32)
    (local $n i32) (local $s i32) (local $v v128) (local $m i32) (local $c i32) (local $y i32) (local $e i32)
    (local $r i32) (local $k i32) (local $x i32) (local $sp i32)
    (global.set $nl (i32.const 0))
    ;; Located cells.
    (block $tail
      (loop $cell
        (br_if $tail (i32.ge_u (local.get $n) (local.get $limit)))
        (if (i32.ge_u (local.get $n) (i32.const {{CAP}})) (then (return (i32.const -2))))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 34))
          (then
            (local.set $r (call $quoted (local.get $p) (local.get $end)))
            (if (i32.lt_s (local.get $r) (i32.const 0)) (then (return (local.get $r))))
            (local.set $k (i32.shl (local.get $n) (i32.const 2)))
            (i32.store offset={{STARTS}} (local.get $k) (i32.add (local.get $p) (i32.const 1)))
            (i32.store offset={{ENDS}} (local.get $k) (global.get $close))
            (i32.store8 offset={{FLAGS}} (local.get $n) (global.get $qflags))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))
            (if (i32.eq (i32.load8_u (local.get $r)) (i32.const 44))
              (then
                (local.set $p (i32.add (local.get $r) (i32.const 1)))
                (br $cell)))
            (i32.store (i32.const {{META_CELLS}}) (local.get $n))
            (i32.store (i32.const {{META_LINES}}) (i32.add (global.get $nl) (i32.const 1)))
            (return (i32.add (local.get $r) (i32.const 1)))))
        ;; An unquoted cell: it ends at the first comma or line feed (a quote inside it is data).
        (local.set $s (local.get $p))
        (loop $find
          (local.set $v (v128.load align=1 (local.get $p)))
          (local.set $m
            (i32.or
              (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44)))
              (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10)))))
          (if (i32.eqz (local.get $m))
            (then
              (local.set $p (i32.add (local.get $p) (i32.const 16)))
              (br $find))))
        (local.set $y (i32.add (local.get $p) (i32.ctz (local.get $m))))
        (if (i32.ge_u (local.get $y) (local.get $end)) (then (return (i32.const -1))))
        (local.set $c (i32.load8_u (local.get $y)))
        (local.set $e (local.get $y))
        (if (i32.and
              (i32.eq (local.get $c) (i32.const 10))
              (i32.gt_u (local.get $e) (local.get $s)))
          (then
            (if (i32.eq (i32.load8_u (i32.sub (local.get $e) (i32.const 1))) (i32.const 13))
              (then (local.set $e (i32.sub (local.get $e) (i32.const 1)))))))
        (local.set $k (i32.shl (local.get $n) (i32.const 2)))
        (i32.store offset={{STARTS}} (local.get $k) (local.get $s))
        (i32.store offset={{ENDS}} (local.get $k) (local.get $e))
        (i32.store8 offset={{FLAGS}} (local.get $n) (i32.const 0))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (if (i32.eq (local.get $c) (i32.const 10))
          (then
            (i32.store (i32.const {{META_CELLS}}) (local.get $n))
            (i32.store (i32.const {{META_LINES}}) (i32.add (global.get $nl) (i32.const 1)))
            (return (i32.add (local.get $y) (i32.const 1)))))
        (local.set $p (i32.add (local.get $y) (i32.const 1)))
        (br $cell)))
    ;; The rest of the record, counted sixteen bytes at a time: p starts a cell (the n-th, counted now); sp is
    ;; the start of the cell being scanned, so that a quote there opens a quoted cell and one elsewhere is data.
    (local.set $n (i32.add (local.get $n) (i32.const 1)))
    (local.set $sp (local.get $p))
    (loop $block
      (local.set $v (v128.load align=1 (local.get $p)))
      (local.set $c (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44))))
      (local.set $m
        (i32.or
          (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34)))
          (i8x16.bitmask (i8x16.eq (local.get $v) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10)))))
      (if (i32.eqz (local.get $m))
        (then
          (local.set $n (i32.add (local.get $n) (i32.popcnt (local.get $c))))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (br $block)))
      (local.set $k (i32.ctz (local.get $m)))
      (local.set $n
        (i32.add (local.get $n)
          (i32.popcnt (i32.and (local.get $c) (i32.sub (i32.shl (i32.const 1) (local.get $k)) (i32.const 1))))))
      (local.set $x (i32.add (local.get $p) (local.get $k)))
      (if (i32.ge_u (local.get $x) (local.get $end)) (then (return (i32.const -1))))
      (if (i32.eq (i32.load8_u (local.get $x)) (i32.const 10))
        (then
          (i32.store (i32.const {{META_CELLS}}) (local.get $n))
          (i32.store (i32.const {{META_LINES}}) (i32.add (global.get $nl) (i32.const 1)))
          (return (i32.add (local.get $x) (i32.const 1)))))
      ;; A quote: it opens a quoted cell only at the start of a cell.
      (if (i32.or
            (i32.eq (local.get $x) (local.get $sp))
            (i32.eq (i32.load8_u (i32.sub (local.get $x) (i32.const 1))) (i32.const 44)))
        (then
          (local.set $r (call $quoted (local.get $x) (local.get $end)))
          (if (i32.lt_s (local.get $r) (i32.const 0)) (then (return (local.get $r))))
          (if (i32.eq (i32.load8_u (local.get $r)) (i32.const 10))
            (then
              (i32.store (i32.const {{META_CELLS}}) (local.get $n))
              (i32.store (i32.const {{META_LINES}}) (i32.add (global.get $nl) (i32.const 1)))
              (return (i32.add (local.get $r) (i32.const 1)))))
          (local.set $n (i32.add (local.get $n) (i32.const 1)))
          (local.set $p (i32.add (local.get $r) (i32.const 1)))
          (local.set $sp (local.get $p))
          (br $block)))
      (local.set $p (i32.add (local.get $x) (i32.const 1)))
      (br $block))
    (unreachable))

  ;; ---------------------------------------------------------------------------------------------------------
  ;; Kernel rows in batches. After configure(), rows() reads records one after the other as long as each is a
  ;; plain kernel row: as many cells as the header, a duration that is a plain non-negative decimal below 2^31
  ;; ticks (214 ms), a Step Id that is empty or a plain non-negative integer, and a group key (the raw bytes of its cells) already known
  ;; to the key table. For each it writes the key's id, the step and the duration in ticks of 1e-4 us. It stops
  ;; before the first record that is anything else, which the JavaScript reader then reads the slow way (and
  ;; gives a new key its id with keyId()). So every number a batch yields is what the JavaScript parsers give.
  ;;
  ;; (See the top for the algorithm and the memory it uses.)

  (global $width (mut i32) (i32.const 0))
  (global $durI (mut i32) (i32.const 0))
  (global $stepI (mut i32) (i32.const -1))
  (global $keyLo (mut i32) (i32.const 0))
  (global $keyHi (mut i32) (i32.const 0))
  (global $shapesI (mut i32) (i32.const -1))
  (global $startI (mut i32) (i32.const -1))
  (global $streamI (mut i32) (i32.const -1))
  (global $locate (mut i32) (i32.const 1))
  (global $keys (mut i32) (i32.const 0))
  (global $used (mut i32) (i32.const 0))

  (func (export "configure") (param $width i32) (param $durI i32) (param $stepI i32) (param $keyLo i32) (param $keyHi i32)
    (param $shapesI i32) (param $startI i32) (param $streamI i32) (param $locate i32)
    (global.set $width (local.get $width))
    (global.set $durI (local.get $durI))
    (global.set $stepI (local.get $stepI))
    (global.set $keyLo (local.get $keyLo))
    (global.set $keyHi (local.get $keyHi))
    (global.set $shapesI (local.get $shapesI))
    (global.set $startI (local.get $startI))
    (global.set $streamI (local.get $streamI))
    (global.set $locate (local.get $locate)))


  ;; A duration cell [s, e) as ticks, as parseTicks in numbers.ts reads it; -1 when it is anything but a
  ;; plain non-negative decimal of at most 11 integer digits (the JavaScript parser then decides).
  (func $ticks (param $s i32) (param $e i32) (result i64)
    (local $c i32) (local $int i64) (local $frac i64) (local $digits i32) (local $id i32) (local $fd i32) (local $up i64) (local $d i32)
    (block $trimmed (loop $l
      (br_if $trimmed (i32.ge_u (local.get $s) (local.get $e)))
      (local.set $c (i32.load8_u (local.get $s)))
      (br_if $trimmed (i32.eqz (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9))) (i32.eq (local.get $c) (i32.const 13)))))
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (br $l)))
    (block $trimmed2 (loop $l
      (br_if $trimmed2 (i32.le_u (local.get $e) (local.get $s)))
      (local.set $c (i32.load8_u (i32.sub (local.get $e) (i32.const 1))))
      (br_if $trimmed2 (i32.eqz (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9))) (i32.eq (local.get $c) (i32.const 13)))))
      (local.set $e (i32.sub (local.get $e) (i32.const 1)))
      (br $l)))
    (block $int (loop $l
      (br_if $int (i32.ge_u (local.get $s) (local.get $e)))
      (local.set $d (i32.sub (i32.load8_u (local.get $s)) (i32.const 48)))
      (br_if $int (i32.gt_u (local.get $d) (i32.const 9)))
      (local.set $int (i64.add (i64.mul (local.get $int) (i64.const 10)) (i64.extend_i32_u (local.get $d))))
      (local.set $id (i32.add (local.get $id) (i32.const 1)))
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (br $l)))
    (if (i32.gt_u (local.get $id) (i32.const 11)) (then (return (i64.const -1))))
    (local.set $digits (local.get $id))
    (if (i32.lt_u (local.get $s) (local.get $e))
      (then
        (if (i32.eq (i32.load8_u (local.get $s)) (i32.const 46))
          (then
            (local.set $s (i32.add (local.get $s) (i32.const 1)))
            (block $frac (loop $l
              (br_if $frac (i32.ge_u (local.get $s) (local.get $e)))
              (local.set $d (i32.sub (i32.load8_u (local.get $s)) (i32.const 48)))
              (br_if $frac (i32.gt_u (local.get $d) (i32.const 9)))
              (if (i32.lt_u (local.get $fd) (i32.const 4))
                (then
                  (local.set $frac (i64.add (i64.mul (local.get $frac) (i64.const 10)) (i64.extend_i32_u (local.get $d))))
                  (local.set $fd (i32.add (local.get $fd) (i32.const 1))))
                (else
                  (if (i32.eq (local.get $fd) (i32.const 4))
                    (then
                      (local.set $up (i64.extend_i32_u (i32.ge_u (local.get $d) (i32.const 5))))
                      (local.set $fd (i32.const 5))))))
              (local.set $digits (i32.add (local.get $digits) (i32.const 1)))
              (local.set $s (i32.add (local.get $s) (i32.const 1)))
              (br $l)))))))
    (if (i32.or (i32.ne (local.get $s) (local.get $e)) (i32.eqz (local.get $digits))) (then (return (i64.const -1))))
    (block $scaled (loop $l
      (br_if $scaled (i32.ge_u (local.get $fd) (i32.const 4)))
      (local.set $frac (i64.mul (local.get $frac) (i64.const 10)))
      (local.set $fd (i32.add (local.get $fd) (i32.const 1)))
      (br $l)))
    (i64.add (i64.add (i64.mul (local.get $int) (i64.const 10000)) (local.get $frac)) (local.get $up)))

  ;; A Step Id cell [s, e): its value; -2147483648 when empty; -2147483647 when it is anything but a plain
  ;; non-negative integer of at most 9 digits (the JavaScript parser then decides).
  (func $step (param $s i32) (param $e i32) (result i32)
    (local $c i32) (local $v i32) (local $d i32)
    (block $trimmed (loop $l
      (br_if $trimmed (i32.ge_u (local.get $s) (local.get $e)))
      (local.set $c (i32.load8_u (local.get $s)))
      (br_if $trimmed (i32.eqz (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9))) (i32.eq (local.get $c) (i32.const 13)))))
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (br $l)))
    (block $trimmed2 (loop $l
      (br_if $trimmed2 (i32.le_u (local.get $e) (local.get $s)))
      (local.set $c (i32.load8_u (i32.sub (local.get $e) (i32.const 1))))
      (br_if $trimmed2 (i32.eqz (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9))) (i32.eq (local.get $c) (i32.const 13)))))
      (local.set $e (i32.sub (local.get $e) (i32.const 1)))
      (br $l)))
    (if (i32.eq (local.get $s) (local.get $e)) (then (return (i32.const -2147483648))))
    (if (i32.gt_u (i32.sub (local.get $e) (local.get $s)) (i32.const 9)) (then (return (i32.const -2147483647))))
    (loop $l
      (local.set $d (i32.sub (i32.load8_u (local.get $s)) (i32.const 48)))
      (if (i32.gt_u (local.get $d) (i32.const 9)) (then (return (i32.const -2147483647))))
      (local.set $v (i32.add (i32.mul (local.get $v) (i32.const 10)) (local.get $d)))
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $s) (local.get $e))))
    (local.get $v))

  ;; The first `len` (< 8) bytes at p as a little-endian word, the rest zero (p may be read 8 bytes on).
  (func $partial (param $p i32) (param $len i32) (result i64)
    (if (result i64) (i32.eqz (local.get $len))
      (then (i64.const 0))
      (else
        (i64.and (i64.load align=1 (local.get $p))
          (i64.shr_u (i64.const -1) (i64.extend_i32_u (i32.sub (i32.const 64) (i32.shl (local.get $len) (i32.const 3)))))))))


  ;; Hashing: each eight bytes are xor-ed in and multiplied; the last ones (fewer than eight) with the length.
  (func $hashSpan (param $h i64) (param $s i32) (param $e i32) (result i64)
    (local $len i32)
    (block $done (loop $l
      (br_if $done (i32.gt_s (i32.add (local.get $s) (i32.const 8)) (local.get $e)))
      (local.set $h (i64.mul (i64.xor (local.get $h) (i64.load align=1 (local.get $s))) (i64.const 0x9E3779B97F4A7C15)))
      (local.set $s (i32.add (local.get $s) (i32.const 8)))
      (br $l)))
    (local.set $len (i32.sub (local.get $e) (local.get $s)))
    (i64.mul
      (i64.xor (local.get $h)
        (i64.xor (call $partial (local.get $s) (local.get $len))
          (i64.shl (i64.extend_i32_u (local.get $len)) (i64.const 56))))
      (i64.const 0x9E3779B97F4A7C15)))

  (func $hash (param $s1 i32) (param $e1 i32) (param $s2 i32) (param $e2 i32) (result i32)
    (local $h i64)
    (local.set $h (call $hashSpan (i64.const 0x243F6A8885A308D3) (local.get $s1) (local.get $e1)))
    (if (i32.ge_s (local.get $s2) (i32.const 0))
      (then (local.set $h (call $hashSpan (i64.xor (local.get $h) (i64.const 0x1e)) (local.get $s2) (local.get $e2)))))
    ;; Fold the high bits into the low ones, which pick the slot.
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 29))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0xBF58476D1CE4E5B9)))
    (i32.wrap_i64 (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32)))))

  ;; Are the `len` bytes at a and at b the same?
  (func $same (param $a i32) (param $b i32) (param $len i32) (result i32)
    (block $done (loop $l
      (br_if $done (i32.lt_s (local.get $len) (i32.const 8)))
      (if (i64.ne (i64.load align=1 (local.get $a)) (i64.load align=1 (local.get $b))) (then (return (i32.const 0))))
      (local.set $a (i32.add (local.get $a) (i32.const 8)))
      (local.set $b (i32.add (local.get $b) (i32.const 8)))
      (local.set $len (i32.sub (local.get $len) (i32.const 8)))
      (br $l)))
    (i64.eq (call $partial (local.get $a) (local.get $len)) (call $partial (local.get $b) (local.get $len))))

  ;; The slot of a key: where its entry is, or the empty slot where it would go. Slots hold entry + 1.
  (func $slot (param $h i32) (param $s1 i32) (param $e1 i32) (param $s2 i32) (param $e2 i32) (result i32)
    (local $i i32) (local $k i32) (local $l1 i32) (local $off i32)
    (local.set $l1 (i32.sub (local.get $e1) (local.get $s1)))
    (local.set $i (i32.and (local.get $h) (i32.const {{SLOT_MASK}})))
    (loop $probe
      (local.set $k (i32.load offset={{SLOTS}} (i32.shl (local.get $i) (i32.const 2))))
      (if (i32.eqz (local.get $k)) (then (return (local.get $i))))
      (local.set $k (i32.shl (i32.sub (local.get $k) (i32.const 1)) (i32.const 2)))
      (if (i32.and
            (i32.eq (i32.load offset={{HASHES}} (local.get $k)) (local.get $h))
            (i32.eq (i32.load offset={{LEN1}} (local.get $k)) (local.get $l1)))
        (then
          (local.set $off (i32.load offset={{OFFSETS}} (local.get $k)))
          (if (i32.lt_s (local.get $s2) (i32.const 0))
            (then
              (if (i32.eq (i32.load offset={{LEN2}} (local.get $k)) (i32.const -1))
                (then
                  (if (call $same (i32.add (local.get $off) (i32.const {{ARENA}})) (local.get $s1) (local.get $l1))
                    (then (return (local.get $i)))))))
            (else
              (if (i32.eq (i32.load offset={{LEN2}} (local.get $k)) (i32.sub (local.get $e2) (local.get $s2)))
                (then
                  (if (i32.and
                        (call $same (i32.add (local.get $off) (i32.const {{ARENA}})) (local.get $s1) (local.get $l1))
                        (call $same (i32.add (i32.add (local.get $off) (local.get $l1)) (i32.const {{ARENA}})) (local.get $s2)
                          (i32.sub (local.get $e2) (local.get $s2))))
                    (then (return (local.get $i))))))))))
      (local.set $i (i32.and (i32.add (local.get $i) (i32.const 1)) (i32.const {{SLOT_MASK}})))
      (br $probe))
    (unreachable))

  ;; The id of a key, -1 when it is not in the table.
  (func $find (param $s1 i32) (param $e1 i32) (param $s2 i32) (param $e2 i32) (result i32)
    (local $k i32)
    (local.set $k
      (i32.load offset={{SLOTS}}
        (i32.shl
          (call $slot (call $hash (local.get $s1) (local.get $e1) (local.get $s2) (local.get $e2))
            (local.get $s1) (local.get $e1) (local.get $s2) (local.get $e2))
          (i32.const 2))))
    (i32.sub (local.get $k) (i32.const 1)))

  ;; The id of a key, given one if it is new; -1 when the table is full (resetKeys() then empties it).
  (func (export "keyId") (param $s1 i32) (param $e1 i32) (param $s2 i32) (param $e2 i32) (result i32)
    (local $h i32) (local $i i32) (local $k i32) (local $l1 i32) (local $l2 i32)
    (local.set $h (call $hash (local.get $s1) (local.get $e1) (local.get $s2) (local.get $e2)))
    (local.set $i (call $slot (local.get $h) (local.get $s1) (local.get $e1) (local.get $s2) (local.get $e2)))
    (local.set $k (i32.load offset={{SLOTS}} (i32.shl (local.get $i) (i32.const 2))))
    (if (local.get $k) (then (return (i32.sub (local.get $k) (i32.const 1)))))
    (local.set $l1 (i32.sub (local.get $e1) (local.get $s1)))
    (local.set $l2 (if (result i32) (i32.lt_s (local.get $s2) (i32.const 0))
      (then (i32.const 0)) (else (i32.sub (local.get $e2) (local.get $s2)))))
    (if (i32.or
          (i32.ge_u (global.get $keys) (i32.const {{MAX_KEYS}}))
          (i32.gt_u (i32.add (i32.add (global.get $used) (local.get $l1)) (local.get $l2)) (i32.const {{ARENA_LIMIT}})))
      (then (return (i32.const -1))))
    (local.set $k (i32.shl (global.get $keys) (i32.const 2)))
    (i32.store offset={{HASHES}} (local.get $k) (local.get $h))
    (i32.store offset={{OFFSETS}} (local.get $k) (global.get $used))
    (i32.store offset={{LEN1}} (local.get $k) (local.get $l1))
    (i32.store offset={{LEN2}} (local.get $k) (if (result i32) (i32.lt_s (local.get $s2) (i32.const 0))
      (then (i32.const -1)) (else (local.get $l2))))
    (memory.copy (i32.add (global.get $used) (i32.const {{ARENA}})) (local.get $s1) (local.get $l1))
    (if (i32.gt_s (local.get $l2) (i32.const 0))
      (then
        (memory.copy (i32.add (i32.add (global.get $used) (local.get $l1)) (i32.const {{ARENA}})) (local.get $s2) (local.get $l2))))
    (global.set $used (i32.add (i32.add (global.get $used) (local.get $l1)) (local.get $l2)))
    (global.set $keys (i32.add (global.get $keys) (i32.const 1)))
    (i32.store offset={{SLOTS}} (i32.shl (local.get $i) (i32.const 2)) (global.get $keys))
    (i32.sub (global.get $keys) (i32.const 1)))

  (func (export "resetKeys")
    (memory.fill (i32.const {{SLOTS}}) (i32.const 0) (i32.const {{SLOTS_BYTES}}))
    (global.set $keys (i32.const 0))
    (global.set $used (i32.const 0)))

  ;; Plain kernel rows from p, at most 2048; returns where it stopped (see above).
  (func (export "rows") (param $p i32) (param $end i32) (result i32)
    (local $k i32) (local $nl i32) (local $r i32) (local $d i64) (local $st i32) (local $id i32) (local $s2 i32) (local $e2 i32)
    (local $o i32)
    (block $stop
      (loop $row
        (br_if $stop (i32.ge_u (local.get $k) (i32.const {{MAX_BATCH}})))
        (br_if $stop (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $r (call $record (local.get $p) (local.get $end) (global.get $locate)))
        (br_if $stop (i32.lt_s (local.get $r) (i32.const 0)))
        (br_if $stop (i32.ne (i32.load (i32.const {{META_CELLS}})) (global.get $width)))
        (local.set $o (i32.shl (global.get $durI) (i32.const 2)))
        (local.set $d (call $ticks (i32.load offset={{STARTS}} (local.get $o)) (i32.load offset={{ENDS}} (local.get $o))))
        (br_if $stop (i64.lt_s (local.get $d) (i64.const 0)))
        ;; Ticks past 2^31 - 1 (a kernel of over 214 ms) go the slow way: a batch holds them as i32.
        (br_if $stop (i64.gt_s (local.get $d) (i64.const 2147483647)))
        (local.set $st (i32.const -2147483648))
        (if (i32.ge_s (global.get $stepI) (i32.const 0))
          (then
            (local.set $o (i32.shl (global.get $stepI) (i32.const 2)))
            (local.set $st (call $step (i32.load offset={{STARTS}} (local.get $o)) (i32.load offset={{ENDS}} (local.get $o))))
            (br_if $stop (i32.eq (local.get $st) (i32.const -2147483647)))))
        (local.set $s2 (i32.const -1))
        (local.set $e2 (i32.const -1))
        (if (i32.ge_s (global.get $shapesI) (i32.const 0))
          (then
            (local.set $o (i32.shl (global.get $shapesI) (i32.const 2)))
            (local.set $s2 (i32.load offset={{STARTS}} (local.get $o)))
            (local.set $e2 (i32.load offset={{ENDS}} (local.get $o)))))
        (local.set $id
          (call $find
            (i32.load offset={{STARTS}} (i32.shl (global.get $keyLo) (i32.const 2)))
            (i32.load offset={{ENDS}} (i32.shl (global.get $keyHi) (i32.const 2)))
            (local.get $s2) (local.get $e2)))
        (br_if $stop (i32.lt_s (local.get $id) (i32.const 0)))
        (local.set $o (i32.shl (local.get $k) (i32.const 2)))
        (i32.store offset={{IDS}} (local.get $o) (local.get $id))
        (i32.store offset={{STEPS}} (local.get $o) (local.get $st))
        (i32.store offset={{TICKS}} (local.get $o) (i32.wrap_i64 (local.get $d)))
        ;; Where the start-time cell is, when asked for (the reader parses it).
        (if (i32.ge_s (global.get $startI) (i32.const 0))
          (then
            (local.set $s2 (i32.shl (global.get $startI) (i32.const 2)))
            (i32.store offset={{START_AT}} (local.get $o) (i32.load offset={{STARTS}} (local.get $s2)))
            (i32.store offset={{START_END}} (local.get $o) (i32.load offset={{ENDS}} (local.get $s2)))))
        ;; The Stream ID, when asked for: a plain integer of at most 9 digits as $step reads it, else -1 (none),
        ;; as parseStreamCell (kernelCells.ts) reads it.
        (if (i32.ge_s (global.get $streamI) (i32.const 0))
          (then
            (local.set $s2 (i32.shl (global.get $streamI) (i32.const 2)))
            (local.set $e2 (call $step (i32.load offset={{STARTS}} (local.get $s2)) (i32.load offset={{ENDS}} (local.get $s2))))
            (i32.store offset={{STREAMS}} (local.get $o)
              (select (local.get $e2) (i32.const -1) (i32.ge_s (local.get $e2) (i32.const 0))))))
        (local.set $nl (i32.add (local.get $nl) (i32.load (i32.const {{META_LINES}}))))
        (local.set $k (i32.add (local.get $k) (i32.const 1)))
        (local.set $p (local.get $r))
        (br $row)))
    (i32.store (i32.const {{META_BATCH_ROWS}}) (local.get $k))
    (i32.store (i32.const {{META_BATCH_LINES}}) (local.get $nl))
    (local.get $p))
)

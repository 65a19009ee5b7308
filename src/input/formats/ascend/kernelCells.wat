;; The cells of a plain kernel row that the kernel table's decoder (kernelRows.wat) parses itself: the duration,
;; the start time and the Step Id, each exactly as the JavaScript parser of that cell reads it (numbers.ts,
;; kernelCells.ts), or a value that sends the row to it. Spliced into simd.wat with the decoder by scripts/wasm.mjs
;; (one module: these are fields of it, called by rows()).
;;
;; The common Step Id, Stream ID and start cells are read by fragments that scripts/wasm.mjs inlines where rows()
;; says `{{$name ...}}` (a call would cost more than such a cell: V8 does not inline WebAssembly calls, and a call
;; spills the loop's locals); rows() declares the locals they use ($len $x $v $n $q $f $y $c $us). Each takes
;; only cells whose every byte it has checked, from whole words (four digits at a time, sixteen in a SIMD load),
;; and hands any other to the function below that reads it byte by byte ($step, $start), so the two agree on every
;; cell (a property test of engines.test.ts compares both engines on cells either side of each bound). The
;; duration is read by $ticks: a word-at-a-time version of it was no faster.

  ;; The bytes of $x that are no digit, as an i32 whose byte is non-zero there (a digit's high half is 3 and its
  ;; low half plus 6 stays below 16; no carry crosses a byte).
  ;; @inline $nonDigits32 $x
  (i32.or (i32.xor (i32.and (local.get $x) (i32.const 0xf0f0f0f0)) (i32.const 0x30303030))
    (i32.and (i32.add (i32.and (local.get $x) (i32.const 0x0f0f0f0f)) (i32.const 0x06060606)) (i32.const 0xf0f0f0f0)))
  ;; @end

  ;; $y: the four bytes of $y that $n keeps (0-4; the first the lowest), digits, as a number of four digits with
  ;; trailing zeros: the ticks of that many decimals.
  ;; @inline $decimals $y $n
  (local.set $y (i32.and (local.get $y)
    (select (i32.shr_u (i32.const -1) (i32.sub (i32.const 32) (i32.shl (local.get $n) (i32.const 3)))) (i32.const 0) (local.get $n))))
  (local.set $y (i32.xor (local.get $y) (i32.and (local.get $y) (i32.const 0x30303030))))
  (local.set $y (i32.and (i32.add (i32.mul (local.get $y) (i32.const 10)) (i32.shr_u (local.get $y) (i32.const 8))) (i32.const 0x00ff00ff)))
  (local.set $y (i32.and (i32.add (i32.mul (local.get $y) (i32.const 100)) (i32.shr_u (local.get $y) (i32.const 16))) (i32.const 0xffff)))
  ;; @end

  ;; The start-time cell [$s, $e) of row $o as $start reads it, when it is sixteen whole digits (one SIMD load: the
  ;; lanes checked at once, then pairs, fours and eights made by lane), none or a `.` and up to four decimals (one
  ;; i32: a fifth would be a digit where the cell must end), and none or one space, TAB, CR or LF; any other by
  ;; $start.
  ;; @inline $startOf $s $e $o
  (local.set $q (i32.add (local.get $s) (i32.const 16)))
  (local.set $f (i32.and (i32.lt_u (local.get $q) (local.get $e)) (i32.eq (i32.load8_u (local.get $q)) (i32.const 46))))
  ;; After the dot (if any): the decimals ($n of them, 4: four or more), then the byte at $q.
  (local.set $y (i32.load align=1 (i32.add (local.get $q) (local.get $f))))
  (local.set $n (select (i32.shr_u (i32.ctz {{$nonDigits32 $y}}) (i32.const 3)) (i32.const 0) (local.get $f)))
  (local.set $q (i32.add (i32.add (local.get $q) (local.get $f)) (local.get $n)))
  (local.set $c (i32.load8_u (local.get $q)))
  (local.set $q (i32.add (local.get $q) (i32.and (i32.lt_u (local.get $q) (local.get $e))
    (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9)))
      (i32.or (i32.eq (local.get $c) (i32.const 13)) (i32.eq (local.get $c) (i32.const 10)))))))
  (local.set $v (i8x16.sub (v128.load align=1 (local.get $s)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48)))
  (if (i32.and (i8x16.all_true (i8x16.lt_u (local.get $v) (v128.const i8x16 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10 10)))
        (i32.eq (local.get $q) (local.get $e)))
    (then
      (local.set $v (i16x8.add (i16x8.mul (v128.and (local.get $v) (v128.const i16x8 0xff 0xff 0xff 0xff 0xff 0xff 0xff 0xff)) (v128.const i16x8 10 10 10 10 10 10 10 10))
        (i16x8.shr_u (local.get $v) (i32.const 8))))
      (local.set $v (i32x4.dot_i16x8_s (local.get $v) (v128.const i16x8 100 1 100 1 100 1 100 1)))
      (local.set $v (i32x4.mul (local.get $v) (v128.const i32x4 10000 1 10000 1)))
      (local.set $v (i64x2.add (v128.and (local.get $v) (v128.const i64x2 0xffffffff 0xffffffff)) (i64x2.shr_u (local.get $v) (i32.const 32))))
      (local.set $x (i64.add (i64.mul (i64x2.extract_lane 0 (local.get $v)) (i64.const 100000000)) (i64x2.extract_lane 1 (local.get $v))))
      ;; The decimals, as ticks (no fifth to round on).
      {{$decimals $y $n}}
      {{$startStore $x $y $o}})
    (else (call $start (local.get $s) (local.get $e) (local.get $o))))
  ;; @end

  ;; Row $o's start from its whole µs $x (an i64, no time past 2^53 - 1) and the ticks of its decimals $y: the first
  ;; time of a file is its origin; the start is exact ticks after it, as startTicksOf (kernelCells.ts) makes it:
  ;; (us - origin) * 10000 + ticks, NaN past 2^53 - 1.
  ;; @inline $startStore $x $y $o
  (local.set $us (select (f64.const nan) (f64.convert_i64_u (local.get $x)) (i64.gt_u (local.get $x) (i64.const 9007199254740991))))
  (if (i32.and (f64.ne (global.get $origin) (global.get $origin)) (f64.eq (local.get $us) (local.get $us)))
    (then (global.set $origin (local.get $us))))
  (local.set $us (f64.add (f64.mul (f64.sub (local.get $us) (global.get $origin)) (f64.const 10000)) (f64.convert_i32_s (local.get $y))))
  (f64.store offset={{START_AFTER}} (i32.shl (local.get $o) (i32.const 1))
    (select (local.get $us) (f64.const nan) (f64.le (f64.abs (local.get $us)) (f64.const 9007199254740991))))
  ;; @end

  ;; $out: the Step Id (or Stream ID) cell [$s, $e) as $step reads it: a cell of one to four digits from one i32
  ;; load (the digits placed after leading zeros, then pairs and the four), any other by $step.
  ;; @inline $stepOf $s $e $out
  (local.set $len (i32.sub (local.get $e) (local.get $s)))
  (local.set $y (i32.shl (i32.const -1) (i32.sub (i32.const 32) (i32.shl (local.get $len) (i32.const 3)))))
  (local.set $f (i32.shl (i32.load align=1 (local.get $s)) (i32.sub (i32.const 32) (i32.shl (local.get $len) (i32.const 3)))))
  (if (i32.and (i32.lt_u (i32.sub (local.get $len) (i32.const 1)) (i32.const 4))
        (i32.eqz (i32.and (local.get $y)
          (i32.or (i32.xor (i32.and (local.get $f) (i32.const 0xf0f0f0f0)) (i32.const 0x30303030))
            (i32.and (i32.add (i32.and (local.get $f) (i32.const 0x0f0f0f0f)) (i32.const 0x06060606)) (i32.const 0xf0f0f0f0))))))
    (then
      (local.set $f (i32.and (local.get $f) (i32.const 0x0f0f0f0f)))
      (local.set $f (i32.and (i32.add (i32.mul (local.get $f) (i32.const 10)) (i32.shr_u (local.get $f) (i32.const 8))) (i32.const 0x00ff00ff)))
      (local.set $out (i32.and (i32.add (i32.mul (local.get $f) (i32.const 100)) (i32.shr_u (local.get $f) (i32.const 16))) (i32.const 0xffff))))
    (else (local.set $out (call $step (local.get $s) (local.get $e)))))
  ;; @end

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

  ;; A start-time cell [s, e) read as startTicksAfterBytes (kernelCells.ts) reads it, for row o (its index × 4): its
  ;; whole µs (not a time when the cell is empty, `N/A`, a sign, an exponent, or whole µs past 2^53 - 1) and the
  ;; ticks of its decimals (four, rounded half up on the fifth), as exact ticks after the file's origin ($origin of
  ;; kernelRows.wat: the first time read, here or by the reader) in an f64 at START_AFTER (NaN: no time). Spaces,
  ;; TAB, CR and LF around are allowed.
  (func $start (param $s i32) (param $e i32) (param $o i32)
    (local $c i32) (local $d i32) (local $whole i64) (local $first i32) (local $big i32) (local $ticks i32) (local $place i32)
    (local $x i64) (local $us f64) (local $after f64)
    (block $trimmed (loop $l
      (br_if $trimmed (i32.ge_u (local.get $s) (local.get $e)))
      (local.set $c (i32.load8_u (local.get $s)))
      (br_if $trimmed (i32.eqz (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9)))
        (i32.or (i32.eq (local.get $c) (i32.const 13)) (i32.eq (local.get $c) (i32.const 10))))))
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (br $l)))
    (local.set $first (local.get $s))
    ;; Whole µs, eight digits at a time while eight more are in the cell (SWAR: the eight bytes as one word) and the
    ;; value is below 10^10 (so that it cannot overflow); then one digit at a time.
    (block $eights (loop $l
      (br_if $eights (i32.gt_u (i32.add (local.get $s) (i32.const 8)) (local.get $e)))
      (br_if $eights (i64.ge_u (local.get $whole) (i64.const 10000000000)))
      (local.set $x (i64.load align=1 (local.get $s)))
      ;; Eight digits: each byte's high half is 3, and stays 3 once 6 is added (0x30-0x39, not 0x3a-0x3f).
      (br_if $eights (i64.ne
        (i64.and (i64.or (local.get $x) (i64.add (local.get $x) (i64.const 0x0606060606060606))) (i64.const 0xf0f0f0f0f0f0f0f0))
        (i64.const 0x3030303030303030)))
      (br_if $eights (i64.ne (i64.and (local.get $x) (i64.const 0xf0f0f0f0f0f0f0f0)) (i64.const 0x3030303030303030)))
      ;; The first digit is the lowest byte: pairs, then fours, then the eight, each lane times its place.
      (local.set $x (i64.sub (local.get $x) (i64.const 0x3030303030303030)))
      (local.set $x (i64.and (i64.add (i64.mul (local.get $x) (i64.const 10)) (i64.shr_u (local.get $x) (i64.const 8))) (i64.const 0x00ff00ff00ff00ff)))
      (local.set $x (i64.and (i64.add (i64.mul (local.get $x) (i64.const 100)) (i64.shr_u (local.get $x) (i64.const 16))) (i64.const 0x0000ffff0000ffff)))
      (local.set $x (i64.and (i64.add (i64.mul (local.get $x) (i64.const 10000)) (i64.shr_u (local.get $x) (i64.const 32))) (i64.const 0xffffffff)))
      (local.set $whole (i64.add (i64.mul (local.get $whole) (i64.const 100000000)) (local.get $x)))
      (local.set $big (i64.gt_u (local.get $whole) (i64.const 9007199254740991)))
      (local.set $s (i32.add (local.get $s) (i32.const 8)))
      (br $l)))
    ;; Whole µs: past 2^53 - 1 it is no time (a double would not hold it exactly), and it is not multiplied on.
    (block $int (loop $l
      (br_if $int (i32.ge_u (local.get $s) (local.get $e)))
      (local.set $d (i32.sub (i32.load8_u (local.get $s)) (i32.const 48)))
      (br_if $int (i32.gt_u (local.get $d) (i32.const 9)))
      (if (i32.eqz (local.get $big))
        (then
          (local.set $whole (i64.add (i64.mul (local.get $whole) (i64.const 10)) (i64.extend_i32_u (local.get $d))))
          (local.set $big (i64.gt_u (local.get $whole) (i64.const 9007199254740991)))))
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (br $l)))
    ;; No whole digit: no time (whatever follows).
    (local.set $first (i32.eq (local.get $s) (local.get $first)))
    (if (i32.lt_u (local.get $s) (local.get $e))
      (then
        (if (i32.eq (i32.load8_u (local.get $s)) (i32.const 46))
          (then
            (local.set $s (i32.add (local.get $s) (i32.const 1)))
            (block $frac (loop $l
              (br_if $frac (i32.ge_u (local.get $s) (local.get $e)))
              (local.set $d (i32.sub (i32.load8_u (local.get $s)) (i32.const 48)))
              (br_if $frac (i32.gt_u (local.get $d) (i32.const 9)))
              (if (i32.lt_u (local.get $place) (i32.const 4))
                (then (local.set $ticks (i32.add (i32.mul (local.get $ticks) (i32.const 10)) (local.get $d))))
                (else
                  (if (i32.and (i32.eq (local.get $place) (i32.const 4)) (i32.ge_u (local.get $d) (i32.const 5)))
                    (then (local.set $ticks (i32.add (local.get $ticks) (i32.const 1)))))))
              (local.set $place (i32.add (local.get $place) (i32.const 1)))
              (local.set $s (i32.add (local.get $s) (i32.const 1)))
              (br $l)))
            ;; Fewer than four decimals: scale up.
            (block $scaled (loop $l
              (br_if $scaled (i32.ge_u (local.get $place) (i32.const 4)))
              (local.set $ticks (i32.mul (local.get $ticks) (i32.const 10)))
              (local.set $place (i32.add (local.get $place) (i32.const 1)))
              (br $l)))))))
    (block $trimmed2 (loop $l
      (br_if $trimmed2 (i32.ge_u (local.get $s) (local.get $e)))
      (local.set $c (i32.load8_u (local.get $s)))
      (br_if $trimmed2 (i32.eqz (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 9)))
        (i32.or (i32.eq (local.get $c) (i32.const 13)) (i32.eq (local.get $c) (i32.const 10))))))
      (local.set $s (i32.add (local.get $s) (i32.const 1)))
      (br $l)))
    ;; The whole µs (NaN: the cell is no time); the first time of a file is its origin; the start is then exact
    ;; ticks after it, as startTicksOf (kernelCells.ts) makes it: (us - origin) * 10000 + ticks, NaN past 2^53 - 1.
    (local.set $us (select (f64.const nan) (f64.convert_i64_u (local.get $whole))
      (i32.or (i32.or (i32.ne (local.get $s) (local.get $e)) (local.get $first)) (local.get $big))))
    (if (i32.and (f64.ne (global.get $origin) (global.get $origin)) (f64.eq (local.get $us) (local.get $us)))
      (then (global.set $origin (local.get $us))))
    (local.set $after (f64.add (f64.mul (f64.sub (local.get $us) (global.get $origin)) (f64.const 10000)) (f64.convert_i32_s (local.get $ticks))))
    (f64.store offset={{START_AFTER}} (i32.shl (local.get $o) (i32.const 1))
      (select (local.get $after) (f64.const nan) (f64.le (f64.abs (local.get $after)) (f64.const 9007199254740991)))))

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

;; The event scanner's fast path (see eventScanner.ts), in WebAssembly: one trace event object at a time, its
;; asked-for members located, every byte checked against the JSON grammar as the JavaScript scanner checks it.
;; Anything else (a member name with an escape, an error of any kind, nesting past 512 levels) it leaves to the
;; JavaScript scanner, which then scans that event itself and says what is wrong where:
;;   >= 0  the position past the event;  -1  the event does not end before `end` (more data);  -2  leave it to JS.
;; So the two agree on every input: this is only a faster path through the events of a well-formed trace.
;;
;; Memory (bytes): STACK 0 (a byte per open container: 1 object, 2 array), KINDS 512 (u8 per field), STARTS 1024
;; and ENDS 1536 (i32 per field, relative to the data: the bytes at DATA are the scanner's window), KEYLEN 2048
;; (u8 per key: its length, 1..32), KEYS 4096 (32 bytes per key), CAND_EVENT 8192 and CAND_ARGS 16896 (u8 per
;; length 0..32 × first byte: the index + 1 of the one key of the event, or of args, that has them; 0: none),
;; NAME_ID 1800 (i32: the id of the name in the intern field of the last event, -1 when it was not interned,
;; -2 when it had none), INTERNS 2304 (u8 per field: 1 when its strings are interned), IDS 2560 (i32 per field:
;; the id of its string), DECIDE 2880 (u8 per decide field, at most 4: the fields whose strings say whether an
;; event is of use, see `events`), MASKS 32768 (32 bytes, see $members), the last call's START 2944, SKIPPED 2948, NEXT 2952, VERDICT 2956 and GEN 2960
;; (i32 each), the name table (SLOTS 1048576: 65536 i64 slots; NAMES 1572864: per name its offset and its length,
;; i32 each, for 32768 names; ARENA 2097152: 4 MiB of their bytes), the verdicts (VKEYS 6291456:
;; 65536 i64 keys; VVALS 6815744: a u8 verdict each), DATA 7340032. Field i is key i: the event keys first, then
;; the keys of `args`. Strings are located without their quotes. The caller writes zeros past `end` and keeps 64
;; readable bytes there (searches load sixteen at a time; a byte at `end` reads as 0, which no token continues with).
;;
;; Verdicts: a reader may say (ScannerOptions.wantRest) that an event is of no use by the strings of a few fields
;; (ph, cat, name). Its answer depends on those strings only, so it is asked once per spelling of them (the ids of
;; the decide fields, packed, are the key) and kept here: `events` then passes over the events it was told are of
;; no use without returning to JavaScript, and counts them.
;;
;; Over 400 lines: one WebAssembly module (a call between modules would cost more than an event), its grammar
;; checks and key lookup together.
(module
  (memory (export "memory") 2)
  ;; MASKS: sixteen bytes 0xff, then sixteen 0 (the sixteen bytes at 32784 - n keep the first n of a load).
  (data (i32.const 32768) "\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff\ff")
  (global $nEvent (mut i32) (i32.const 0))
  (global $nFields (mut i32) (i32.const 0))
  (global $argsField (mut i32) (i32.const -1))
  (global $internField (mut i32) (i32.const -1))
  ;; The name table: names held, arena bytes used.
  (global $names (mut i32) (i32.const 0))
  (global $used (mut i32) (i32.const 0))
  ;; Decide fields (their count, 0..4, and their bits among the event's fields); verdicts held.
  (global $nDecide (mut i32) (i32.const 0))
  (global $decideMask (mut i32) (i32.const 0))
  (global $verdicts (mut i32) (i32.const 0))
  ;; The last event's: decide fields seen, whether the name table was emptied while it was read, its verdict key.
  (global $seen (mut i32) (i32.const 0))
  (global $resetInEvent (mut i32) (i32.const 0))
  ;; Whether the last event was passed over as soon as its decide fields were read.
  (global $early (mut i32) (i32.const 0))
  (global $key (mut i64) (i64.const 0))

  ;; The keys are written at KEYLEN and KEYS by the caller; then the counts.
  ;; The keys are written at KEYLEN and KEYS, the interned fields at INTERNS and the decide fields at DECIDE by
  ;; the caller; then the counts.
  (func (export "configure") (param $nEvent i32) (param $nFields i32) (param $argsField i32) (param $internField i32)
        (param $nDecide i32) (param $decideMask i32)
    (global.set $nEvent (local.get $nEvent))
    (global.set $nFields (local.get $nFields))
    (global.set $argsField (local.get $argsField))
    (global.set $internField (local.get $internField))
    (global.set $nDecide (local.get $nDecide))
    (global.set $decideMask (local.get $decideMask)))

  ;; Empty the verdicts.
  (func $clearVerdicts
    (memory.fill (i32.const 6291456) (i32.const 0) (i32.const 589824))
    (global.set $verdicts (i32.const 0)))

  ;; Empty the name table (and the verdicts, whose keys are names' ids).
  (func $resetNames (export "resetNames")
    (memory.fill (i32.const 1048576) (i32.const 0) (i32.const 524288))
    (global.set $names (i32.const 0))
    (global.set $used (i32.const 0))
    (call $clearVerdicts))

  ;; The id of the name spelt by the bytes [s, e) (as written, escapes and all), given one if new; -1 when the
  ;; table is full (MAX_NAMES names or ARENA_BYTES bytes: the caller empties it). Open addressing over SLOTS (a
  ;; slot holds the name's hash in its high half and its id + 1 in its low half, 0: empty; a name's NAMES entry
  ;; holds its offset in ARENA and its length). The hash (two lanes of sixteen bytes a step, the last bytes
  ;; masked, with the length) and the comparison of the bytes (sixteen at a time) are written out here.
  (func $intern (param $s i32) (param $e i32) (result i32)
    (local $n i32) (local $h i32) (local $slot i32) (local $k i32) (local $i i32) (local $r i32)
    (local $h1 i64) (local $h2 i64) (local $w i64) (local $a i32)
    (local.set $n (i32.sub (local.get $e) (local.get $s)))
    (local.set $h1 (i64.xor (i64.const 0xcbf29ce484222325) (i64.extend_i32_u (local.get $n))))
    (local.set $h2 (i64.const 0x84222325cbf29ce4))
    (block $pairs (loop $pair
      (br_if $pairs (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $n)))
      (local.set $h1 (i64.mul (i64.xor (local.get $h1) (i64.load align=1 (i32.add (local.get $s) (local.get $i)))) (i64.const 0x100000001b3)))
      (local.set $h2 (i64.mul (i64.xor (local.get $h2) (i64.load offset=8 align=1 (i32.add (local.get $s) (local.get $i)))) (i64.const 0x100000001b3)))
      (local.set $h1 (i64.xor (local.get $h1) (i64.shr_u (local.get $h1) (i64.const 29))))
      (local.set $h2 (i64.xor (local.get $h2) (i64.shr_u (local.get $h2) (i64.const 29))))
      (local.set $i (i32.add (local.get $i) (i32.const 16)))
      (br $pair)))
    (if (i32.le_u (i32.add (local.get $i) (i32.const 8)) (local.get $n))
      (then
        (local.set $h1 (i64.mul (i64.xor (local.get $h1) (i64.load align=1 (i32.add (local.get $s) (local.get $i)))) (i64.const 0x100000001b3)))
        (local.set $h1 (i64.xor (local.get $h1) (i64.shr_u (local.get $h1) (i64.const 29))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))))
    (local.set $r (i32.sub (local.get $n) (local.get $i)))
    (if (local.get $r)
      (then
        (local.set $h2 (i64.mul (i64.xor (local.get $h2)
          (i64.and (i64.load align=1 (i32.add (local.get $s) (local.get $i)))
                   (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.shl (local.get $r) (i32.const 3)))) (i64.const 1))))
          (i64.const 0x100000001b3)))))
    (local.set $h1 (i64.xor (local.get $h1) (i64.rotl (local.get $h2) (i64.const 31))))
    (local.set $h1 (i64.mul (i64.xor (local.get $h1) (i64.shr_u (local.get $h1) (i64.const 32))) (i64.const 0x9e3779b97f4a7c15)))
    (local.set $h (i32.wrap_i64 (i64.shr_u (local.get $h1) (i64.const 32))))
    (local.set $slot (i32.and (local.get $h) (i32.const 65535)))
    (loop $probe
      (local.set $w (i64.load offset=1048576 (i32.shl (local.get $slot) (i32.const 3))))
      (if (i64.eqz (local.get $w))
        (then
          (if (i32.or (i32.ge_u (global.get $names) (i32.const 32768))
                      (i32.gt_u (i32.add (global.get $used) (local.get $n)) (i32.const 4194304)))
            (then (return (i32.const -1))))
          (local.set $k (global.get $names))
          (memory.copy (i32.add (i32.const 2097152) (global.get $used)) (local.get $s) (local.get $n))
          (i32.store offset=1572864 (i32.shl (local.get $k) (i32.const 3)) (global.get $used))
          (i32.store offset=1572868 (i32.shl (local.get $k) (i32.const 3)) (local.get $n))
          (i64.store offset=1048576 (i32.shl (local.get $slot) (i32.const 3))
            (i64.or (i64.shl (i64.extend_i32_u (local.get $h)) (i64.const 32)) (i64.extend_i32_u (i32.add (local.get $k) (i32.const 1)))))
          (global.set $used (i32.add (global.get $used) (local.get $n)))
          (global.set $names (i32.add (local.get $k) (i32.const 1)))
          (return (local.get $k))))
      (block $differ
        (br_if $differ (i32.ne (i32.wrap_i64 (i64.shr_u (local.get $w) (i64.const 32))) (local.get $h)))
        (local.set $k (i32.sub (i32.wrap_i64 (local.get $w)) (i32.const 1)))
        (br_if $differ (i32.ne (i32.load offset=1572868 (i32.shl (local.get $k) (i32.const 3))) (local.get $n)))
        (local.set $a (i32.add (i32.const 2097152) (i32.load offset=1572864 (i32.shl (local.get $k) (i32.const 3)))))
        (local.set $i (i32.const 0))
        (block $tail (loop $chunks
          (br_if $tail (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $n)))
          (br_if $differ (v128.any_true (v128.xor (v128.load align=1 (i32.add (local.get $a) (local.get $i))) (v128.load align=1 (i32.add (local.get $s) (local.get $i))))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br $chunks)))
        (br_if $differ (v128.any_true (v128.and
          (v128.xor (v128.load align=1 (i32.add (local.get $a) (local.get $i))) (v128.load align=1 (i32.add (local.get $s) (local.get $i))))
          (v128.load align=1 (i32.sub (i32.const 32784) (i32.sub (local.get $n) (local.get $i)))))))
        (return (local.get $k)))
      (local.set $slot (i32.and (i32.add (local.get $slot) (i32.const 1)) (i32.const 65535)))
      (br $probe))
    (unreachable))

  (func $ws (param $p i32) (param $end i32) (result i32)
    (local $c i32)
    (loop $l
      (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $p)))
      (if (i32.or (i32.or (i32.eq (local.get $c) (i32.const 32)) (i32.eq (local.get $c) (i32.const 10)))
                  (i32.or (i32.eq (local.get $c) (i32.const 13)) (i32.eq (local.get $c) (i32.const 9))))
        (then (local.set $p (i32.add (local.get $p) (i32.const 1))) (br $l))))
    (local.get $p))

  ;; A literal (true, false, null) at p: its bytes as one little-endian word (with its length in bytes).
  (func $lit (param $p i32) (param $end i32) (param $word i64) (param $len i32) (result i32)
    (local $mask i64)
    (if (i32.gt_u (i32.add (local.get $p) (local.get $len)) (local.get $end)) (then (return (i32.const -1))))
    (local.set $mask (i64.sub (i64.shl (i64.const 1) (i64.extend_i32_u (i32.shl (local.get $len) (i32.const 3)))) (i64.const 1)))
    (if (i64.ne (i64.and (i64.load align=1 (local.get $p)) (local.get $mask)) (local.get $word)) (then (return (i32.const -2))))
    (i32.add (local.get $p) (local.get $len)))

  ;; Skip from p with d containers open (their kinds at 0..d-1: 1 object, 2 array); state 0: a value is expected
  ;; at p, 1: p is past a value. Returns the position past the container open at depth 0 (past the value when d
  ;; is 0), -1 when the data ends first, -2 on anything JSON does not allow (or nesting past 512).
  (func $skip (export "skip") (param $p i32) (param $end i32) (param $d i32) (param $state i32) (result i32)
    (local $c i32) (local $top i32) (local $v v128) (local $m i32) (local $nq i32) (local $nc i32) (local $nd i32) (local $key i32)
    ;; Each step of the grammar goes on to the next one where it is (no dispatch on a state per token): $item, a
    ;; value (a member name and its colon first when $key), then past it its containers' closes and a comma.
    (local.set $key (i32.eq (local.get $state) (i32.const 2)))
    (loop $item
      (block $past
        (br_if $past (i32.eq (local.get $state) (i32.const 1)))
        (if (local.get $key)
          (then
            (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 32)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
            (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 32))
              (then
                (local.set $p (call $ws (local.get $p) (local.get $end)))
                (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))))
            (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 34)) (then (return (i32.const -2))))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            ;; past the string: its closing quote found sixteen bytes at a time (a backslash escapes the byte after it)
            (block $s5done (loop $s5
              (local.set $m (i8x16.bitmask (v128.or (i8x16.eq (local.tee $v (v128.load align=1 (local.get $p))) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34)) (i8x16.eq (local.get $v) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92)))))
              (if (i32.eqz (local.get $m))
                (then
                  (local.set $p (i32.add (local.get $p) (i32.const 16)))
                  (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
                  (br $s5)))
              (local.set $p (i32.add (local.get $p) (i32.ctz (local.get $m))))
              (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
              (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 34)) (then (local.set $p (i32.add (local.get $p) (i32.const 1))) (br $s5done)))
              (local.set $p (i32.add (local.get $p) (i32.const 2)))
              (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
              (br $s5)))
            (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 32)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
            (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 32))
              (then
                (local.set $p (call $ws (local.get $p) (local.get $end)))
                (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))))
            (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 58)) (then (return (i32.const -2))))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 32)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
        (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 32))
          (then
            (local.set $p (call $ws (local.get $p) (local.get $end)))
            (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))))
        (local.set $c (i32.load8_u (local.get $p)))
        (if (i32.eq (local.get $c) (i32.const 34))
          (then
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            ;; past the string: its closing quote found sixteen bytes at a time (a backslash escapes the byte after it)
            (block $s4done (loop $s4
              (local.set $m (i8x16.bitmask (v128.or (i8x16.eq (local.tee $v (v128.load align=1 (local.get $p))) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34)) (i8x16.eq (local.get $v) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92)))))
              (if (i32.eqz (local.get $m))
                (then
                  (local.set $p (i32.add (local.get $p) (i32.const 16)))
                  (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
                  (br $s4)))
              (local.set $p (i32.add (local.get $p) (i32.ctz (local.get $m))))
              (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
              (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 34)) (then (local.set $p (i32.add (local.get $p) (i32.const 1))) (br $s4done)))
              (local.set $p (i32.add (local.get $p) (i32.const 2)))
              (if (i32.ge_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
              (br $s4)))
            (br $past)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 45)) (i32.lt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10)))
          (then
            (local.set $nq (local.get $p))
            (local.set $nc (i32.load8_u (local.get $nq)))
            (if (i32.eq (local.get $nc) (i32.const 45))
              (then
                (local.set $nq (i32.add (local.get $nq) (i32.const 1)))
                (if (i32.ge_u (local.get $nq) (local.get $end)) (then (return (i32.const -1))))
                (local.set $nc (i32.load8_u (local.get $nq)))))
            (if (i32.eq (local.get $nc) (i32.const 48))
              (then (local.set $nq (i32.add (local.get $nq) (i32.const 1))))
              (else
                (if (i32.gt_u (i32.sub (local.get $nc) (i32.const 49)) (i32.const 8)) (then (return (i32.const -2))))
                (local.set $nq (i32.add (local.get $nq) (i32.const 1)))
                ;; a run of digits, sixteen bytes at a time (the zeros past `end` end it there)
                (block $nd1done (loop $nd1
                  (local.set $m (i8x16.bitmask (i8x16.gt_u (i8x16.sub (v128.load align=1 (local.get $nq)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48)) (v128.const i8x16 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9))))
                  (br_if $nd1done (local.get $m))
                  (local.set $nq (i32.add (local.get $nq) (i32.const 16)))
                  (br $nd1)))
                (local.set $nq (i32.add (local.get $nq) (i32.ctz (local.get $m))))))
            (if (i32.ge_u (local.get $nq) (local.get $end)) (then (return (i32.const -1))))
            (if (i32.eq (i32.load8_u (local.get $nq)) (i32.const 46))
              (then
                (local.set $nd (i32.add (local.get $nq) (i32.const 1)))
                (local.set $nq (local.get $nd))
                ;; a run of digits, sixteen bytes at a time (the zeros past `end` end it there)
                (block $nd2done (loop $nd2
                  (local.set $m (i8x16.bitmask (i8x16.gt_u (i8x16.sub (v128.load align=1 (local.get $nq)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48)) (v128.const i8x16 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9))))
                  (br_if $nd2done (local.get $m))
                  (local.set $nq (i32.add (local.get $nq) (i32.const 16)))
                  (br $nd2)))
                (local.set $nq (i32.add (local.get $nq) (i32.ctz (local.get $m))))
                (if (i32.ge_u (local.get $nq) (local.get $end)) (then (return (i32.const -1))))
                (if (i32.eq (local.get $nq) (local.get $nd)) (then (return (i32.const -2))))))
            (if (i32.eq (i32.or (i32.load8_u (local.get $nq)) (i32.const 32)) (i32.const 101))
              (then
                (local.set $nq (i32.add (local.get $nq) (i32.const 1)))
                (if (i32.ge_u (local.get $nq) (local.get $end)) (then (return (i32.const -1))))
                (local.set $nc (i32.load8_u (local.get $nq)))
                (if (i32.or (i32.eq (local.get $nc) (i32.const 43)) (i32.eq (local.get $nc) (i32.const 45)))
                  (then (local.set $nq (i32.add (local.get $nq) (i32.const 1)))))
                (local.set $nd (local.get $nq))
                ;; a run of digits, sixteen bytes at a time (the zeros past `end` end it there)
                (block $nd3done (loop $nd3
                  (local.set $m (i8x16.bitmask (i8x16.gt_u (i8x16.sub (v128.load align=1 (local.get $nq)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48)) (v128.const i8x16 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9))))
                  (br_if $nd3done (local.get $m))
                  (local.set $nq (i32.add (local.get $nq) (i32.const 16)))
                  (br $nd3)))
                (local.set $nq (i32.add (local.get $nq) (i32.ctz (local.get $m))))
                (if (i32.ge_u (local.get $nq) (local.get $end)) (then (return (i32.const -1))))
                (if (i32.eq (local.get $nq) (local.get $nd)) (then (return (i32.const -2))))))
            (local.set $p (local.get $nq))
            (br $past)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 123)) (i32.eq (local.get $c) (i32.const 91)))
          (then
            (if (i32.ge_u (local.get $d) (i32.const 512)) (then (return (i32.const -2))))
            (i32.store8 (local.get $d) (select (i32.const 1) (i32.const 2) (i32.eq (local.get $c) (i32.const 123))))
            (local.set $d (i32.add (local.get $d) (i32.const 1)))
            (local.set $p (i32.add (local.get $p) (i32.const 1)))
            (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 32)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
            (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 32))
              (then
                (local.set $p (call $ws (local.get $p) (local.get $end)))
                (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))))
            (if (i32.eq (i32.load8_u (local.get $p)) (i32.add (local.get $c) (i32.const 2)))
              (then
                (local.set $p (i32.add (local.get $p) (i32.const 1)))
                (local.set $d (i32.sub (local.get $d) (i32.const 1)))
                (br $past)))
            (local.set $key (i32.eq (local.get $c) (i32.const 123)))
            (br $item)))
        (if (i32.eq (local.get $c) (i32.const 116))
          (then (local.set $p (call $lit (local.get $p) (local.get $end) (i64.const 0x65757274) (i32.const 4))))
          (else
            (if (i32.eq (local.get $c) (i32.const 102))
              (then (local.set $p (call $lit (local.get $p) (local.get $end) (i64.const 0x65736c6166) (i32.const 5))))
              (else
                (if (i32.ne (local.get $c) (i32.const 110)) (then (return (i32.const -2))))
                (local.set $p (call $lit (local.get $p) (local.get $end) (i64.const 0x6c6c756e) (i32.const 4)))))))
        (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (local.get $p)))))
      ;; past a value
      (local.set $state (i32.const 0))
      (loop $close
        (if (i32.eqz (local.get $d)) (then (return (local.get $p))))
        (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 32)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
        (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 32))
          (then
            (local.set $p (call $ws (local.get $p) (local.get $end)))
            (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))))
        (local.set $c (i32.load8_u (local.get $p)))
        (local.set $top (i32.load8_u (i32.sub (local.get $d) (i32.const 1))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (if (i32.eq (local.get $c) (i32.const 44))
          (then
            (local.set $key (i32.eq (local.get $top) (i32.const 1)))
            (br $item)))
        (if (i32.eq (local.get $c) (select (i32.const 125) (i32.const 93) (i32.eq (local.get $top) (i32.const 1))))
          (then
            (local.set $d (i32.sub (local.get $d) (i32.const 1)))
            (br $close)))
        (return (i32.const -2))))
    (unreachable))

  ;; The members of an object at p (its brace), keys matched through the candidate table `cand`: the key of
  ;; CAND (by length and first byte, the index + 1 of the one key that may be it; 0: none), then compared sixteen
  ;; bytes at a time under the mask of its length (MASKS). Key ends, strings, numbers and the recording of a field
  ;; (its KINDS, STARTS and ENDS; kinds: 1 string, 2 number, 3 true, 4 false, 5 null, 6 object, 7 array) are
  ;; written out here, not called: Node does not inline WebAssembly calls, and a call per token cost more than
  ;; the token's bytes.
  (func $members (param $p i32) (param $end i32) (param $cand i32) (result i32)
    (local $ks i32) (local $ke i32) (local $f i32) (local $c i32) (local $q i32) (local $v v128) (local $m i32)
    (local $n i32) (local $i i32) (local $k i32) (local $bit i32) (local $id i32) (local $d i32)
    (local.set $p (i32.add (local.get $p) (i32.const 1)))
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 32)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
    (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 32))
      (then
        (local.set $p (call $ws (local.get $p) (local.get $end)))
        (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))))
    (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 125)) (then (return (i32.add (local.get $p) (i32.const 1)))))
    (loop $member
      (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 34)) (then (return (i32.const -2))))
      (local.set $ks (i32.add (local.get $p) (i32.const 1)))
      ;; the key's closing quote; an escape in it: JavaScript decodes it
      (local.set $ke (local.get $ks))
      (block $kdone (loop $kl
        (local.set $m (i8x16.bitmask (v128.or (i8x16.eq (local.tee $v (v128.load align=1 (local.get $ke))) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34)) (i8x16.eq (local.get $v) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92)))))
        (br_if $kdone (local.get $m))
        (local.set $ke (i32.add (local.get $ke) (i32.const 16)))
        (br_if $kl (i32.lt_u (local.get $ke) (local.get $end)))
        (return (i32.const -1))))
      (local.set $ke (i32.add (local.get $ke) (i32.ctz (local.get $m))))
      (if (i32.ge_u (local.get $ke) (local.get $end)) (then (return (i32.const -1))))
      (if (i32.eq (i32.load8_u (local.get $ke)) (i32.const 92)) (then (return (i32.const -2))))
      (local.set $p (i32.add (local.get $ke) (i32.const 1)))
      (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 32)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
      (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 32))
        (then
          (local.set $p (call $ws (local.get $p) (local.get $end)))
          (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))))
      (if (i32.ne (i32.load8_u (local.get $p)) (i32.const 58)) (then (return (i32.const -2))))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 32)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
      (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 32))
        (then
          (local.set $p (call $ws (local.get $p) (local.get $end)))
          (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))))
      ;; the field the key is, or -1
      (local.set $f (i32.const -1))
      (local.set $n (i32.sub (local.get $ke) (local.get $ks)))
      (if (i32.le_u (local.get $n) (i32.const 32))
        (then
          (local.set $i (i32.load8_u (i32.add (local.get $cand) (i32.or (i32.shl (local.get $n) (i32.const 8)) (i32.load8_u (local.get $ks))))))
          (if (local.get $i)
            (then
              (local.set $i (i32.sub (local.get $i) (i32.const 1)))
              (local.set $k (i32.add (i32.const 4096) (i32.shl (local.get $i) (i32.const 5))))
              (if (i32.eqz (v128.any_true (v128.or
                    (v128.and (v128.xor (v128.load align=1 (local.get $ks)) (v128.load (local.get $k)))
                              (v128.load align=1 (i32.sub (i32.const 32784) (select (local.get $n) (i32.const 16) (i32.lt_u (local.get $n) (i32.const 16))))))
                    (v128.and (v128.xor (v128.load offset=16 align=1 (local.get $ks)) (v128.load offset=16 (local.get $k)))
                              (v128.load align=1 (i32.sub (i32.const 32784) (select (i32.sub (local.get $n) (i32.const 16)) (i32.const 0) (i32.gt_u (local.get $n) (i32.const 16)))))))))
                (then (local.set $f (local.get $i))))))))
      (local.set $c (i32.load8_u (local.get $p)))
      ;; A decide field (bit): written twice, the JavaScript scanner decides on the first (see `events`).
      (local.set $bit (i32.const 0))
      (block $value
        (if (i32.ge_s (local.get $f) (i32.const 0))
          (then
            (if (i32.eq (local.get $f) (global.get $argsField))
              (then
                (if (i32.eq (local.get $c) (i32.const 123))
                  (then
                    (local.set $q (call $members (local.get $p) (local.get $end) (i32.const 16896)))
                    (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (local.get $q))))
                    (i32.store8 offset=512 (local.get $f) (i32.const 6))
                    (i32.store offset=1024 (i32.shl (local.get $f) (i32.const 2)) (i32.sub (local.get $p) (i32.const 7340032)))
                    (i32.store offset=1536 (i32.shl (local.get $f) (i32.const 2)) (i32.sub (local.get $q) (i32.const 7340032)))
                    (br $value))))
              (else
                (if (i32.lt_u (local.get $f) (i32.const 32))
                  (then (local.set $bit (i32.and (global.get $decideMask) (i32.shl (i32.const 1) (local.get $f))))))
                (if (local.get $bit)
                  (then
                    (if (i32.and (global.get $seen) (local.get $bit)) (then (return (i32.const -2))))
                    (global.set $seen (i32.or (global.get $seen) (local.get $bit)))))))))
        (if (i32.eq (local.get $c) (i32.const 34))
          (then
            (local.set $q (i32.add (local.get $p) (i32.const 1)))
            ;; past the string: its closing quote found sixteen bytes at a time (a backslash escapes the byte after it)
            (block $s101done (loop $s101
              (local.set $m (i8x16.bitmask (v128.or (i8x16.eq (local.tee $v (v128.load align=1 (local.get $q))) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34)) (i8x16.eq (local.get $v) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92)))))
              (if (i32.eqz (local.get $m))
                (then
                  (local.set $q (i32.add (local.get $q) (i32.const 16)))
                  (if (i32.ge_u (local.get $q) (local.get $end)) (then (return (i32.const -1))))
                  (br $s101)))
              (local.set $q (i32.add (local.get $q) (i32.ctz (local.get $m))))
              (if (i32.ge_u (local.get $q) (local.get $end)) (then (return (i32.const -1))))
              (if (i32.eq (i32.load8_u (local.get $q)) (i32.const 34)) (then (local.set $q (i32.add (local.get $q) (i32.const 1))) (br $s101done)))
              (local.set $q (i32.add (local.get $q) (i32.const 2)))
              (if (i32.ge_u (local.get $q) (local.get $end)) (then (return (i32.const -1))))
              (br $s101)))
            (br_if $value (i32.lt_s (local.get $f) (i32.const 0)))
            (i32.store8 offset=512 (local.get $f) (i32.const 1))
            (i32.store offset=1024 (i32.shl (local.get $f) (i32.const 2)) (i32.sub (i32.add (local.get $p) (i32.const 1)) (i32.const 7340032)))
            (i32.store offset=1536 (i32.shl (local.get $f) (i32.const 2)) (i32.sub (i32.sub (local.get $q) (i32.const 1)) (i32.const 7340032)))
            (if (i32.load8_u offset=2304 (local.get $f))
              (then
                (local.set $id (call $intern (i32.add (local.get $p) (i32.const 1)) (i32.sub (local.get $q) (i32.const 1))))
                ;; The table is full (more names than a trace has): it starts again, and the caller is told (GEN).
                (if (i32.eq (local.get $id) (i32.const -1))
                  (then
                    (call $resetNames)
                    (i32.store (i32.const 2960) (i32.add (i32.load (i32.const 2960)) (i32.const 1)))
                    (global.set $resetInEvent (i32.const 1))
                    (local.set $id (call $intern (i32.add (local.get $p) (i32.const 1)) (i32.sub (local.get $q) (i32.const 1))))))
                (i32.store offset=2560 (i32.shl (local.get $f) (i32.const 2)) (local.get $id))
                (if (i32.eq (local.get $f) (global.get $internField)) (then (i32.store (i32.const 1800) (local.get $id))))))
            (br $value)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 45)) (i32.lt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10)))
          (then
            (local.set $q (local.get $p))
            (local.set $i (i32.load8_u (local.get $q)))
            (if (i32.eq (local.get $i) (i32.const 45))
              (then
                (local.set $q (i32.add (local.get $q) (i32.const 1)))
                (if (i32.ge_u (local.get $q) (local.get $end)) (then (return (i32.const -1))))
                (local.set $i (i32.load8_u (local.get $q)))))
            (if (i32.eq (local.get $i) (i32.const 48))
              (then (local.set $q (i32.add (local.get $q) (i32.const 1))))
              (else
                (if (i32.gt_u (i32.sub (local.get $i) (i32.const 49)) (i32.const 8)) (then (return (i32.const -2))))
                (local.set $q (i32.add (local.get $q) (i32.const 1)))
                ;; a run of digits, sixteen bytes at a time (the zeros past `end` end it there)
                (block $n1done (loop $n1
                  (local.set $m (i8x16.bitmask (i8x16.gt_u (i8x16.sub (v128.load align=1 (local.get $q)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48)) (v128.const i8x16 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9))))
                  (br_if $n1done (local.get $m))
                  (local.set $q (i32.add (local.get $q) (i32.const 16)))
                  (br $n1)))
                (local.set $q (i32.add (local.get $q) (i32.ctz (local.get $m))))))
            (if (i32.ge_u (local.get $q) (local.get $end)) (then (return (i32.const -1))))
            (if (i32.eq (i32.load8_u (local.get $q)) (i32.const 46))
              (then
                (local.set $d (i32.add (local.get $q) (i32.const 1)))
                (local.set $q (local.get $d))
                ;; a run of digits, sixteen bytes at a time (the zeros past `end` end it there)
                (block $n2done (loop $n2
                  (local.set $m (i8x16.bitmask (i8x16.gt_u (i8x16.sub (v128.load align=1 (local.get $q)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48)) (v128.const i8x16 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9))))
                  (br_if $n2done (local.get $m))
                  (local.set $q (i32.add (local.get $q) (i32.const 16)))
                  (br $n2)))
                (local.set $q (i32.add (local.get $q) (i32.ctz (local.get $m))))
                (if (i32.ge_u (local.get $q) (local.get $end)) (then (return (i32.const -1))))
                (if (i32.eq (local.get $q) (local.get $d)) (then (return (i32.const -2))))))
            (if (i32.eq (i32.or (i32.load8_u (local.get $q)) (i32.const 32)) (i32.const 101))
              (then
                (local.set $q (i32.add (local.get $q) (i32.const 1)))
                (if (i32.ge_u (local.get $q) (local.get $end)) (then (return (i32.const -1))))
                (local.set $i (i32.load8_u (local.get $q)))
                (if (i32.or (i32.eq (local.get $i) (i32.const 43)) (i32.eq (local.get $i) (i32.const 45)))
                  (then (local.set $q (i32.add (local.get $q) (i32.const 1)))))
                (local.set $d (local.get $q))
                ;; a run of digits, sixteen bytes at a time (the zeros past `end` end it there)
                (block $n3done (loop $n3
                  (local.set $m (i8x16.bitmask (i8x16.gt_u (i8x16.sub (v128.load align=1 (local.get $q)) (v128.const i8x16 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48 48)) (v128.const i8x16 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9 9))))
                  (br_if $n3done (local.get $m))
                  (local.set $q (i32.add (local.get $q) (i32.const 16)))
                  (br $n3)))
                (local.set $q (i32.add (local.get $q) (i32.ctz (local.get $m))))
                (if (i32.ge_u (local.get $q) (local.get $end)) (then (return (i32.const -1))))
                (if (i32.eq (local.get $q) (local.get $d)) (then (return (i32.const -2))))))
            (br_if $value (i32.lt_s (local.get $f) (i32.const 0)))
            (i32.store8 offset=512 (local.get $f) (i32.const 2))
            (i32.store offset=1024 (i32.shl (local.get $f) (i32.const 2)) (i32.sub (local.get $p) (i32.const 7340032)))
            (i32.store offset=1536 (i32.shl (local.get $f) (i32.const 2)) (i32.sub (local.get $q) (i32.const 7340032)))
            (br $value)))
        (local.set $q (call $skip (local.get $p) (local.get $end) (i32.const 0) (i32.const 0)))
        (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (local.get $q))))
        (br_if $value (i32.lt_s (local.get $f) (i32.const 0)))
        (i32.store8 offset=512 (local.get $f) (select (i32.const 6)
          (select (i32.const 7)
            (select (i32.const 3) (select (i32.const 4) (i32.const 5) (i32.eq (local.get $c) (i32.const 102))) (i32.eq (local.get $c) (i32.const 116)))
            (i32.eq (local.get $c) (i32.const 91)))
          (i32.eq (local.get $c) (i32.const 123))))
        (i32.store offset=1024 (i32.shl (local.get $f) (i32.const 2)) (i32.sub (local.get $p) (i32.const 7340032)))
        (i32.store offset=1536 (i32.shl (local.get $f) (i32.const 2)) (i32.sub (local.get $q) (i32.const 7340032))))
      ;; All decide fields read, and the reader said such events are of no use: the rest is checked only.
      (if (local.get $bit)
        (then
          (if (i32.eq (global.get $seen) (global.get $decideMask))
            (then
              (if (i32.eq (call $verdict) (i32.const 3))
                (then
                  (global.set $early (i32.const 1))
                  (i32.store8 (i32.const 0) (i32.const 1))
                  (return (call $skip (local.get $q) (local.get $end) (i32.const 1) (i32.const 1)))))))))
      (local.set $p (local.get $q))
      (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 32)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
      (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 32))
        (then
          (local.set $p (call $ws (local.get $p) (local.get $end)))
          (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))))
      (local.set $c (i32.load8_u (local.get $p)))
      (if (i32.eq (local.get $c) (i32.const 125)) (then (return (i32.add (local.get $p) (i32.const 1)))))
      (if (i32.ne (local.get $c) (i32.const 44)) (then (return (i32.const -2))))
      (local.set $p (i32.add (local.get $p) (i32.const 1)))
      (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 32)) (then (local.set $p (i32.add (local.get $p) (i32.const 1)))))
      (if (i32.le_u (i32.load8_u (local.get $p)) (i32.const 32))
        (then
          (local.set $p (call $ws (local.get $p) (local.get $end)))
          (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))))
      (br $member))
    (unreachable))

  ;; One event object at p (its brace): its fields located (the others absent), the position past it; VERDICT
  ;; says what the reader said of events with the same decide strings: 1 of use (or not asked: a decide field is
  ;; absent), 3 of no use, 2 not asked yet ($key holds the key for setVerdict), 0 not to be kept (a decide field
  ;; that is not a string, or a table emptied while the event was read: the reader is asked, nothing is kept).
  (func $one (param $p i32) (param $end i32) (result i32)
    (local $q i32)
    ;; KINDS emptied: its 64 bytes (MAX_FIELDS) by four stores (memory.fill is a call out of the module)
    (v128.store (i32.const 512) (v128.const i64x2 0 0))
    (v128.store (i32.const 528) (v128.const i64x2 0 0))
    (v128.store (i32.const 544) (v128.const i64x2 0 0))
    (v128.store (i32.const 560) (v128.const i64x2 0 0))
    (i32.store (i32.const 1800) (i32.const -2))
    (global.set $seen (i32.const 0))
    (global.set $resetInEvent (i32.const 0))
    (global.set $early (i32.const 0))
    (local.set $q (call $members (local.get $p) (local.get $end) (i32.const 8192)))
    (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (local.get $q))))
    (if (global.get $resetInEvent) (then (i32.store (i32.const 1800) (i32.const -1))))
    (if (i32.eqz (global.get $early)) (then (drop (call $verdict))))
    (local.get $q))

  ;; The last event's VERDICT (see $one), from its decide fields as located so far; also returned.
  (func $verdict (result i32)
    (local $i i32) (local $f i32) (local $k i32) (local $id i32) (local $key i64) (local $keep i32) (local $v i32) (local $w i64)
    (i32.store (i32.const 2956) (i32.const 1))
    (if (i32.eqz (global.get $nDecide)) (then (return (i32.const 1))))
    (local.set $keep (i32.const 1))
    (loop $fields
      (local.set $f (i32.load8_u offset=2880 (local.get $i)))
      (local.set $k (i32.load8_u offset=512 (local.get $f)))
      ;; An absent decide field: the reader is not asked, the event is read.
      (if (i32.eqz (local.get $k)) (then (return (i32.const 1))))
      (local.set $id (i32.load offset=2560 (i32.shl (local.get $f) (i32.const 2))))
      (if (i32.or (i32.ne (local.get $k) (i32.const 1)) (i32.lt_s (local.get $id) (i32.const 0)))
        (then (local.set $keep (i32.const 0))))
      (local.set $key (i64.or (i64.shl (local.get $key) (i64.const 15)) (i64.extend_i32_u (i32.and (local.get $id) (i32.const 32767)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $fields (i32.lt_u (local.get $i) (global.get $nDecide))))
    (if (i32.or (i32.eqz (local.get $keep)) (global.get $resetInEvent))
      (then (i32.store (i32.const 2956) (i32.const 0)) (return (i32.const 0))))
    ;; The top bit marks a key (0: an empty slot).
    (local.set $key (i64.or (local.get $key) (i64.const 0x8000000000000000)))
    (global.set $key (local.get $key))
    ;; its slot (as $vslot finds it)
    (local.set $i (i32.wrap_i64 (i64.shr_u (i64.mul (local.get $key) (i64.const 0x9e3779b97f4a7c15)) (i64.const 48))))
    (block $found (loop $probe
      (local.set $w (i64.load offset=6291456 (i32.shl (local.get $i) (i32.const 3))))
      (br_if $found (i32.or (i64.eqz (local.get $w)) (i64.eq (local.get $w) (local.get $key))))
      (local.set $i (i32.and (i32.add (local.get $i) (i32.const 1)) (i32.const 65535)))
      (br $probe)))
    (local.set $v (select (i32.const 2) (i32.load8_u offset=6815744 (local.get $i)) (i64.eqz (local.get $w))))
    (i32.store (i32.const 2956) (local.get $v))
    (local.get $v))

  ;; The verdict slot of a key: where it is, or the empty slot where it would go.
  (func $vslot (param $key i64) (result i32)
    (local $slot i32) (local $k i64)
    (local.set $slot (i32.wrap_i64 (i64.shr_u (i64.mul (local.get $key) (i64.const 0x9e3779b97f4a7c15)) (i64.const 48))))
    (loop $probe
      (local.set $k (i64.load offset=6291456 (i32.shl (local.get $slot) (i32.const 3))))
      (if (i32.or (i64.eqz (local.get $k)) (i64.eq (local.get $k) (local.get $key))) (then (return (local.get $slot))))
      (local.set $slot (i32.and (i32.add (local.get $slot) (i32.const 1)) (i32.const 65535)))
      (br $probe))
    (unreachable))

  ;; What the reader said of the last event (VERDICT 2): 1 of use, 0 of no use. Half the slots at most are used.
  (func (export "setVerdict") (param $use i32)
    (local $slot i32)
    (if (i32.ge_u (global.get $verdicts) (i32.const 32768)) (then (call $clearVerdicts)))
    (local.set $slot (call $vslot (global.get $key)))
    (if (i64.eqz (i64.load offset=6291456 (i32.shl (local.get $slot) (i32.const 3))))
      (then (global.set $verdicts (i32.add (global.get $verdicts) (i32.const 1)))))
    (i64.store offset=6291456 (i32.shl (local.get $slot) (i32.const 3)) (global.get $key))
    (i32.store8 offset=6815744 (local.get $slot) (select (i32.const 1) (i32.const 3) (local.get $use))))

  ;; Past an event at q: the position of the next event's brace when a comma and the brace follow (white space
  ;; allowed), else -1.
  (func $sep (param $q i32) (param $end i32) (result i32)
    (if (i32.le_u (i32.load8_u (local.get $q)) (i32.const 32))
      (then
        (local.set $q (call $ws (local.get $q) (local.get $end)))
        (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const -1))))))
    (if (i32.ne (i32.load8_u (local.get $q)) (i32.const 44)) (then (return (i32.const -1))))
    (local.set $q (i32.add (local.get $q) (i32.const 1)))
    (if (i32.le_u (i32.load8_u (local.get $q)) (i32.const 32))
      (then
        (local.set $q (call $ws (local.get $q) (local.get $end)))
        (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const -1))))))
    (if (i32.ne (i32.load8_u (local.get $q)) (i32.const 123)) (then (return (i32.const -1))))
    (local.get $q))

  ;; Events from p (a brace), passing over those of no use (VERDICT 3, counted in SKIPPED), up to the first the
  ;; reader is to see: its start is START and the position past it is returned, with NEXT the brace of the event
  ;; after it (-1 when the comma and brace are not both there). Else -1: the event at START does not end before
  ;; `end`; -2: leave the event at START to JavaScript; -3: the events passed over end at START, where the
  ;; caller goes on (what follows is not a comma and a brace, or START is at or past `stop`).
  (func (export "events") (param $p i32) (param $end i32) (param $stop i32) (result i32)
    (local $q i32) (local $n i32) (local $r i32)
    (loop $next
      (i32.store (i32.const 2944) (local.get $p))
      (local.set $q (call $one (local.get $p) (local.get $end)))
      (if (i32.lt_s (local.get $q) (i32.const 0))
        (then (i32.store (i32.const 2948) (local.get $n)) (return (local.get $q))))
      (if (i32.eq (i32.load (i32.const 2956)) (i32.const 3))
        (then
          (local.set $n (i32.add (local.get $n) (i32.const 1)))
          (local.set $r (call $sep (local.get $q) (local.get $end)))
          (if (i32.or (i32.lt_s (local.get $r) (i32.const 0)) (i32.ge_u (local.get $q) (local.get $stop)))
            (then
              (i32.store (i32.const 2944) (local.get $q))
              (i32.store (i32.const 2948) (local.get $n))
              (return (i32.const -3))))
          (local.set $p (local.get $r))
          (br $next))))
    (i32.store (i32.const 2948) (local.get $n))
    (i32.store (i32.const 2952) (call $sep (local.get $q) (local.get $end)))
    (local.get $q))
)

//! The interpreter of PTX that `tests/gpu_ptx.rs` runs the GPU kernel with (`tests/ptx/`), checked on its own
//! against the PTX ISA's definitions, on small kernels written here by hand: what each instruction the kernel
//! uses gives, its corner cases included (shifts of 32 or more, `bfind` of 0, signed comparisons), the inline
//! blocks' own registers, and the errors it must raise where a GPU would go on silently. Needs no GPU and no
//! NVRTC, so it runs everywhere.

#[path = "ptx/mod.rs"]
mod ptx;

use ptx::{Arg, Kernel, Launch};

/// One block of `threads` threads with `shared` bytes of shared memory, the threads taking turns every three
/// instructions.
fn launch(threads: u32, shared: usize) -> Launch {
    Launch {
        blocks: 1,
        threads,
        shared,
        slice: 3,
        clock_step: 0,
    }
}

/// The 32-bit words of a buffer.
fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect()
}

/// A kernel `k` with one parameter, a buffer of words, whose body is `body`.
fn kernel(body: &str) -> Kernel {
    let text = format!(
        ".version 9.5\n.target sm_90\n.address_size 64\n\
         .extern .shared .align 16 .b8 shared[];\n\
         .visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\
         \t.reg .pred %p<8>;\n\t.reg .b32 %r<64>;\n\t.reg .b64 %rd<16>;\n\
         \tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd1, %rd1;\n{body}\n\tret;\n}}\n"
    );
    Kernel::parse(&text, "k").unwrap_or_else(|e| panic!("the test's PTX does not read: {e}"))
}

/// Runs a one-thread `kernel` on a buffer of `n` words, and gives them back.
fn run_words(kernel: &Kernel, n: usize) -> Vec<u32> {
    let ran = kernel
        .run(&launch(1, 64), vec![Arg::Buffer(vec![0; 4 * n])])
        .unwrap();
    words(ran.buffers[0].as_ref().unwrap())
}

#[test]
fn the_integer_instructions_give_what_the_ptx_isa_defines() {
    // Each result stored to the next word of the buffer.
    let ops = [
        // lop3: the table 0x96 is a ^ b ^ c, 0xe8 the majority, 0xc0 a & b.
        (
            "lop3.b32 %r3, %r1, %r2, %r10, 0x96;",
            0x1234_5678 ^ 0x0f0f_0f0f ^ 0xffff_0000,
        ),
        (
            "lop3.b32 %r3, %r1, %r2, %r10, 232;",
            0x0f0f_0000 | (0x1234_5678 & 0x0f0f_0f0f) | (0x1234_5678 & 0xffff_0000),
        ),
        (
            "lop3.b32 %r3, %r1, %r2, %r10, 192;",
            0x1234_5678 & 0x0f0f_0f0f,
        ),
        // prmt: the bytes of (r1, r2) by the selector's nibbles; 0x8 in a nibble spreads that byte's sign.
        ("prmt.b32 %r3, %r1, %r2, 0x5210;", 0x0f34_5678),
        ("prmt.b32 %r3, %r1, %r11, 0x000f;", 0x7878_78ff),
        // bfind: the highest bit's place, or with .shiftamt the shift taking it to bit 31; 0xffffffff for 0.
        ("bfind.u32 %r3, %r2;", 27),
        ("bfind.shiftamt.u32 %r3, %r2;", 4),
        ("bfind.shiftamt.u32 %r3, %r12;", 0xffff_ffff),
        // Shifts of 32 or more shift every bit out, or the sign in.
        ("shr.b32 %r3, %r1, 40;", 0),
        ("shr.u32 %r3, %r1, %r13;", 0),
        ("shl.b32 %r3, %r1, 32;", 0),
        ("shr.s32 %r3, %r11, 40;", 0xffff_ffff),
        ("shr.s32 %r3, %r11, 4;", 0xf800_0000),
        ("shr.b32 %r3, %r11, 4;", 0x0800_0000),
        // The high word of a product, the low word, a negation, a complement, a population count.
        ("mul.hi.u32 %r3, %r1, 1073741824;", 0x1234_5678 >> 2),
        ("mul.lo.s32 %r3, %r1, 16;", 0x2345_6780),
        (
            "mad.lo.s32 %r3, %r1, 2, %r2;",
            0x2468_acf0u32.wrapping_add(0x0f0f_0f0f),
        ),
        ("neg.s32 %r3, %r14;", 0xffff_fffd),
        ("not.b32 %r3, %r1;", !0x1234_5678),
        ("popc.b32 %r3, %r1;", 13),
        ("sub.s32 %r3, %r12, 1;", 0xffff_ffff),
        ("add.s32 %r3, %r11, %r11;", 0),
    ];
    let mut body = String::from(
        "\tmov.u32 %r1, 0x12345678;\n\tmov.u32 %r2, 0x0f0f0f0f;\n\tmov.u32 %r10, -65536;\n\
         \tmov.u32 %r11, -2147483648;\n\tmov.u32 %r12, 0;\n\tmov.u32 %r13, 33;\n\tmov.u32 %r14, 3;\n",
    );
    for (i, (op, _)) in ops.iter().enumerate() {
        body += &format!("\t{op}\n\tst.global.u32 [%rd1+{}], %r3;\n", 4 * i);
    }
    let got = run_words(&kernel(&body), ops.len());
    for (i, (op, want)) in ops.iter().enumerate() {
        assert_eq!(got[i], *want, "{op}: {:#x} where {want:#x}", got[i]);
    }
}

#[test]
fn comparisons_selections_conversions_and_64_bit_words() {
    let body = "\tmov.u32 %r1, -1;\n\tmov.u32 %r2, 1;\n\
        \tsetp.lt.s32 %p1, %r1, %r2;\n\tselp.b32 %r3, 7, 9, %p1;\n\tst.global.u32 [%rd1], %r3;\n\
        \tsetp.lt.u32 %p2, %r1, %r2;\n\tselp.b32 %r3, 7, 9, %p2;\n\tst.global.u32 [%rd1+4], %r3;\n\
        \tor.pred %p3, %p1, %p2;\n\tnot.pred %p4, %p3;\n\tselp.b32 %r3, 7, 9, %p4;\n\tst.global.u32 [%rd1+8], %r3;\n\
        \tcvt.u64.u32 %rd2, %r1;\n\tshr.u64 %rd3, %rd2, 31;\n\tcvt.u32.u64 %r3, %rd3;\n\tst.global.u32 [%rd1+12], %r3;\n\
        \tmul.wide.u32 %rd4, %r1, %r1;\n\tst.global.u64 [%rd1+16], %rd4;\n\
        \tmov.b64 %rd5, {%r2, %r1};\n\tst.global.u64 [%rd1+24], %rd5;\n\
        \tmov.b64 {%r4, %r5}, %rd4;\n\tst.global.v2.u32 [%rd1+32], {%r5, %r4};\n\
        \t@%p2 st.global.u32 [%rd1+40], %r2;\n\t@!%p2 st.global.u32 [%rd1+44], %r2;";
    let got = run_words(&kernel(body), 12);
    let wide = 0xffff_ffffu64 * 0xffff_ffff;
    assert_eq!(
        got,
        [
            7,
            9,
            9,
            1,
            wide as u32,
            (wide >> 32) as u32,
            1,
            0xffff_ffff,
            (wide >> 32) as u32,
            wide as u32,
            0,
            1
        ]
    );
}

#[test]
fn an_inline_blocks_registers_are_its_own() {
    // Two blocks name their predicate `p`: each its own (the second's, never set, is false), and neither the
    // function's %p1.
    let body = "\tmov.u32 %r1, 5;\n\tsetp.eq.u32 %p1, %r1, 5;\n\
        \t{\n\t.reg .pred p;\n\tsetp.eq.u32 p, %r1, 5;\n\t@p add.u32 %r1, %r1, 100;\n\t}\n\
        \t{\n\t.reg .pred p, q;\n\tsetp.eq.u32 q, %r1, 105;\n\
        \t@p add.u32 %r1, %r1, 1000;\n\t@q add.u32 %r1, %r1, 10;\n\t}\n\
        \t@%p1 add.u32 %r1, %r1, 1;\n\tst.global.u32 [%rd1], %r1;";
    assert_eq!(run_words(&kernel(body), 1), [116]);
}

#[test]
fn threads_take_tasks_from_an_atomic_counter_and_branches_loop() {
    // Each thread adds 1 to the counter until it passes 100, and counts its own takes in its word: every
    // number is taken once, the threads' takes add up to it, and each thread's last take is past the end.
    let body =
        "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\
        \tmov.u32 %r2, 0;\n\
        $L__loop:\n\tatom.global.add.u32 %r3, [%rd1+64], 1;\n\tsetp.ge.u32 %p1, %r3, 100;\n\
        \t@%p1 bra $L__done;\n\tadd.s32 %r2, %r2, 1;\n\tbra.uni $L__loop;\n\
        $L__done:\n\tst.global.u32 [%rd3], %r2;";
    let ran = kernel(body)
        .run(&launch(7, 64), vec![Arg::Buffer(vec![0; 4 * 17])])
        .unwrap();
    let got = words(ran.buffers[0].as_ref().unwrap());
    assert_eq!(got[..7].iter().sum::<u32>(), 100);
    assert!(got[..7].iter().all(|&t| t > 0), "{got:?}");
    assert_eq!(got[16], 107);
}

#[test]
fn shared_memory_is_read_only_by_the_thread_that_wrote_it() {
    // Each thread writes its word of shared memory, then reads it back: fine.
    let own = "\tmov.u32 %r1, %tid.x;\n\tshl.b32 %r2, %r1, 2;\n\tmov.u32 %r3, shared;\n\tadd.s32 %r4, %r3, %r2;\n\
        \tst.shared.u32 [%r4], %r1;\n\tld.shared.u32 %r5, [%r4];\n\
        \tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r5;";
    let ran = kernel(own)
        .run(&launch(4, 16), vec![Arg::Buffer(vec![0; 16])])
        .unwrap();
    assert_eq!(words(ran.buffers[0].as_ref().unwrap()), [0, 1, 2, 3]);
    // Reading the next thread's word instead is an error, whether it wrote it yet or not.
    let next = own.replace("ld.shared.u32 %r5, [%r4];", "ld.shared.u32 %r5, [%r4+4];");
    let err = kernel(&next)
        .run(&launch(4, 20), vec![Arg::Buffer(vec![0; 16])])
        .err()
        .unwrap();
    assert!(
        err.contains("that thread 1 wrote") || err.contains("that no thread wrote"),
        "{err}"
    );
    // Past the block's shared memory, and unaligned: errors too.
    let err = kernel(own)
        .run(&launch(4, 12), vec![Arg::Buffer(vec![0; 16])])
        .err()
        .unwrap();
    assert!(err.contains("out of bounds"), "{err}");
    let odd = own.replace("st.shared.u32 [%r4]", "st.shared.u32 [%r4+2]");
    let err = kernel(&odd)
        .run(&launch(4, 32), vec![Arg::Buffer(vec![0; 16])])
        .err()
        .unwrap();
    assert!(err.contains("not aligned"), "{err}");
}

#[test]
fn what_the_interpreter_does_not_know_it_refuses_by_name() {
    let text = ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\tfma.rn.f32 %f1, %f2, %f3, %f4;\n\tret;\n}\n";
    let err = Kernel::parse(text, "k").err().unwrap();
    assert!(err.contains("'fma.rn.f32'"), "{err}");
    let err = Kernel::parse(text, "other").err().unwrap();
    assert!(err.contains("no entry other"), "{err}");
    // A trap is an error of the run.
    let err = kernel("\ttrap;")
        .run(&launch(1, 0), vec![Arg::Buffer(vec![0; 4])])
        .err()
        .unwrap();
    assert!(err.contains("trapped"), "{err}");
}

//! Input of the expansion snapshots (`src/snapshots.rs`): `#[dls::main]` and a reduction.
fn main() {
    let __dls_runtime = ::dls::__private::init_or_exit();
    let mut total = 0_u64;
    {
        let () = {
            let __dls_op_0 = ::dls::__private::Sum;
            let __dls_ty_0 = ::dls::__private::type_of(&total);
            let (__dls_result_0,) = ::dls::__private::run_loop(
                ::core::concat!(::core::file!(), ":", ::core::line!()),
                "runtime",
                ::core::option::Option::None,
                0..10_u64,
                || (::dls::__private::identity(&__dls_op_0, __dls_ty_0),),
                |__dls_index, __dls_acc| {
                    let i = __dls_index;
                    #[allow(unused_mut)]
                    let mut total = ::core::mem::take(&mut __dls_acc.0);
                    let () = {
                        total += i;
                    };
                    __dls_acc.0 = total;
                },
                |__dls_a, __dls_b| (
                    ::dls::__private::Operator::combine(
                        &__dls_op_0,
                        __dls_a.0,
                        __dls_b.0,
                    ),
                ),
            );
            total = ::dls::__private::Operator::combine(
                &__dls_op_0,
                total,
                __dls_result_0,
            );
        };
    }
    println!("{total}");
}

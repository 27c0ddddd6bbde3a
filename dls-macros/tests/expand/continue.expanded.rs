fn odd_sum(n: u64) -> u64 {
    let mut total = 0;
    {
        let () = {
            ::dls::__private::travels(&total);
            let __dls_op_0 = {
                #[allow(unused_imports)]
                use ::dls::__private::PickBuiltIn as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAdd as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAny as _;
                (&&&::dls::__private::pick(
                    ::dls::__private::Sum,
                    ::dls::__private::type_of(&total),
                ))
                    .__dls_operator()
            };
            let (__dls_result_0,) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "runtime",
                )
                .run_iterates(
                    (
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::SlotOfMap as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::SlotOfAny as _;
                            (&&::dls::__private::slot_of(
                                &__dls_op_0,
                                ::dls::__private::type_of(&total),
                            ))
                                .__dls_slot()
                        },
                    ),
                    0..n,
                    || (::dls::__private::identity_like(&__dls_op_0, &total),),
                    |__dls_iterates, __dls_acc| {
                        #[allow(unused_mut)]
                        let mut total = ::core::mem::take(&mut __dls_acc.0);
                        let __dls_note_0 = ::dls::__private::default_start_note(
                            &__dls_op_0,
                            &total,
                            ::core::stringify!(total),
                        );
                        for __dls_index in __dls_iterates {
                            let i = __dls_index;
                            let () = '__dls_iterate: {
                                if i % 2 == 0 {
                                    break '__dls_iterate;
                                }
                                for j in 0..3 {
                                    if j == i {
                                        break '__dls_iterate;
                                    }
                                }
                                total += i;
                            };
                        }
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
    total
}

fn collections(v: Vec<u32>, r: &[u32]) -> u32 {
    let mut a = 0;
    let mut b = 0;
    let mut c = 0;
    let mut d = 0;
    {
        let () = {
            ::dls::__private::travels(&a);
            let __dls_op_0 = {
                #[allow(unused_imports)]
                use ::dls::__private::PickBuiltIn as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAdd as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAny as _;
                (&&&::dls::__private::pick(
                    ::dls::__private::Sum,
                    ::dls::__private::type_of(&a),
                ))
                    .__dls_operator()
            };
            let __dls_items = ::dls::__private::elements(&v);
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
                                ::dls::__private::type_of(&a),
                            ))
                                .__dls_slot()
                        },
                    ),
                    0..__dls_items.len(),
                    || (::dls::__private::identity_like(&__dls_op_0, &a),),
                    |__dls_iterates, __dls_acc| {
                        #[allow(unused_mut)]
                        let mut a = ::core::mem::take(&mut __dls_acc.0);
                        let __dls_note_0 = ::dls::__private::default_start_note(
                            &__dls_op_0,
                            &a,
                            ::core::stringify!(a),
                        );
                        for __dls_index in __dls_iterates {
                            let x = &__dls_items[__dls_index];
                            let () = {
                                a += x;
                            };
                        }
                        __dls_acc.0 = a;
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::Operator::combine(
                            &__dls_op_0,
                            __dls_a.0,
                            __dls_b.0,
                        ),
                    ),
                );
            a = ::dls::__private::Operator::combine(&__dls_op_0, a, __dls_result_0);
        };
    }
    {
        let () = {
            ::dls::__private::travels(&b);
            let __dls_op_0 = {
                #[allow(unused_imports)]
                use ::dls::__private::PickBuiltIn as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAdd as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAny as _;
                (&&&::dls::__private::pick(
                    ::dls::__private::Sum,
                    ::dls::__private::type_of(&b),
                ))
                    .__dls_operator()
            };
            let __dls_items = ::dls::__private::elements(&v);
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
                                ::dls::__private::type_of(&b),
                            ))
                                .__dls_slot()
                        },
                    ),
                    0..__dls_items.len(),
                    || (::dls::__private::identity_like(&__dls_op_0, &b),),
                    |__dls_iterates, __dls_acc| {
                        #[allow(unused_mut)]
                        let mut b = ::core::mem::take(&mut __dls_acc.0);
                        let __dls_note_0 = ::dls::__private::default_start_note(
                            &__dls_op_0,
                            &b,
                            ::core::stringify!(b),
                        );
                        for __dls_index in __dls_iterates {
                            let (i, x) = (__dls_index, &__dls_items[__dls_index]);
                            let () = {
                                b += x * i as u32;
                            };
                        }
                        __dls_acc.0 = b;
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::Operator::combine(
                            &__dls_op_0,
                            __dls_a.0,
                            __dls_b.0,
                        ),
                    ),
                );
            b = ::dls::__private::Operator::combine(&__dls_op_0, b, __dls_result_0);
        };
    }
    {
        let () = {
            ::dls::__private::travels(&c);
            let __dls_op_0 = {
                #[allow(unused_imports)]
                use ::dls::__private::PickBuiltIn as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAdd as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAny as _;
                (&&&::dls::__private::pick(
                    ::dls::__private::Sum,
                    ::dls::__private::type_of(&c),
                ))
                    .__dls_operator()
            };
            let __dls_items = ::dls::__private::elements(&v);
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
                                ::dls::__private::type_of(&c),
                            ))
                                .__dls_slot()
                        },
                    ),
                    0..__dls_items.len(),
                    || (::dls::__private::identity_like(&__dls_op_0, &c),),
                    |__dls_iterates, __dls_acc| {
                        #[allow(unused_mut)]
                        let mut c = ::core::mem::take(&mut __dls_acc.0);
                        let __dls_note_0 = ::dls::__private::default_start_note(
                            &__dls_op_0,
                            &c,
                            ::core::stringify!(c),
                        );
                        for __dls_index in __dls_iterates {
                            let x = &__dls_items[__dls_index];
                            let () = {
                                c += x;
                            };
                        }
                        __dls_acc.0 = c;
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::Operator::combine(
                            &__dls_op_0,
                            __dls_a.0,
                            __dls_b.0,
                        ),
                    ),
                );
            c = ::dls::__private::Operator::combine(&__dls_op_0, c, __dls_result_0);
        };
    }
    {
        let () = {
            ::dls::__private::travels(&d);
            let __dls_op_0 = {
                #[allow(unused_imports)]
                use ::dls::__private::PickBuiltIn as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAdd as _;
                #[allow(unused_imports)]
                use ::dls::__private::PickAny as _;
                (&&&::dls::__private::pick(
                    ::dls::__private::Sum,
                    ::dls::__private::type_of(&d),
                ))
                    .__dls_operator()
            };
            let __dls_items = ::dls::__private::borrowed(r);
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
                                ::dls::__private::type_of(&d),
                            ))
                                .__dls_slot()
                        },
                    ),
                    0..__dls_items.len(),
                    || (::dls::__private::identity_like(&__dls_op_0, &d),),
                    |__dls_iterates, __dls_acc| {
                        #[allow(unused_mut)]
                        let mut d = ::core::mem::take(&mut __dls_acc.0);
                        let __dls_note_0 = ::dls::__private::default_start_note(
                            &__dls_op_0,
                            &d,
                            ::core::stringify!(d),
                        );
                        for __dls_index in __dls_iterates {
                            let x = &__dls_items[__dls_index];
                            let () = {
                                d += x;
                            };
                        }
                        __dls_acc.0 = d;
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::Operator::combine(
                            &__dls_op_0,
                            __dls_a.0,
                            __dls_b.0,
                        ),
                    ),
                );
            d = ::dls::__private::Operator::combine(&__dls_op_0, d, __dls_result_0);
        };
    }
    a + b + c + d
}

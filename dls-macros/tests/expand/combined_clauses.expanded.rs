fn words(v: &[String]) -> String {
    let mut text = String::new();
    {
        let () = {
            ::dls::__private::interior(
                ::core::concat!(::core::file!(), ":", ::core::line!()),
                &[
                    (
                        ::core::stringify!(v),
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::FoundInterior as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::NoInterior as _;
                            (&::dls::__private::Probe(&v)).interior()
                        },
                    ),
                ],
            );
            ::dls::__private::travels(&text);
            let __dls_op_0 = ::dls::__private::Merge(support::concat);
            let __dls_ty_0 = ::dls::__private::type_of(&text);
            let (__dls_result_0,) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "fac2",
                )
                .ordered()
                .check(false)
                .run(
                    (::dls::__private::type_of(&text),),
                    0..v.len(),
                    || (::dls::__private::identity(&__dls_op_0, __dls_ty_0),),
                    |__dls_index, __dls_acc| {
                        let i = __dls_index;
                        #[allow(unused_mut)]
                        let mut text = ::core::mem::take(&mut __dls_acc.0);
                        let __dls_note_0 = ::dls::__private::default_start_note(
                            &__dls_op_0,
                            &text,
                            ::core::stringify!(text),
                        );
                        let mut __dls_y = ::core::option::Option::None;
                        let () = {
                            let y = v[i].len() as f64;
                            text = v[i].clone();
                            __dls_y = ::core::option::Option::Some(
                                ::dls::__private::observe_value(y),
                            );
                        };
                        __dls_acc.0 = text;
                        __dls_y
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::Operator::combine(
                            &__dls_op_0,
                            __dls_a.0,
                            __dls_b.0,
                        ),
                    ),
                );
            text = ::dls::__private::Operator::combine(
                &__dls_op_0,
                text,
                __dls_result_0,
            );
        };
    }
    text
}
fn rows(m: usize, n: usize) -> String {
    let mut text = String::new();
    {
        let () = {
            ::dls::__private::interior(
                ::core::concat!(::core::file!(), ":", ::core::line!()),
                &[
                    (
                        ::core::stringify!(n),
                        {
                            #[allow(unused_imports)]
                            use ::dls::__private::FoundInterior as _;
                            #[allow(unused_imports)]
                            use ::dls::__private::NoInterior as _;
                            (&::dls::__private::Probe(&n)).interior()
                        },
                    ),
                ],
            );
            ::dls::__private::travels(&text);
            let __dls_op_0 = ::dls::__private::Merge(support::concat);
            let __dls_ty_0 = ::dls::__private::type_of(&text);
            let (__dls_result_0,) = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "af",
                )
                .reduction("tree")
                .ordered()
                .groups(2usize, 4usize)
                .run_2d(
                    (::dls::__private::type_of(&text),),
                    0..m,
                    || (::dls::__private::identity(&__dls_op_0, __dls_ty_0),),
                    |__dls_index, __dls_inner, __dls_acc| {
                        let j = __dls_index;
                        #[allow(unused_mut)]
                        let mut text = ::core::mem::take(&mut __dls_acc.0);
                        let __dls_note_0 = ::dls::__private::default_start_note(
                            &__dls_op_0,
                            &text,
                            ::core::stringify!(text),
                        );
                        let () = {
                            let mut row = String::new();
                            {
                                let () = {
                                    ::dls::__private::travels(&row);
                                    let __dls_op_0 = ::dls::__private::Merge(support::concat);
                                    let __dls_ty_0 = ::dls::__private::type_of(&row);
                                    let (__dls_result_0,) = ::dls::__private::Loop::new(
                                            ::core::concat!(::core::file!(), ":", ::core::line!()),
                                            "gss",
                                        )
                                        .ordered()
                                        .run_inner(
                                            __dls_inner,
                                            (::dls::__private::type_of(&row),),
                                            0..n,
                                            || (::dls::__private::identity(&__dls_op_0, __dls_ty_0),),
                                            |__dls_index, __dls_acc| {
                                                let i = __dls_index;
                                                #[allow(unused_mut)]
                                                let mut row = ::core::mem::take(&mut __dls_acc.0);
                                                let __dls_note_0 = ::dls::__private::default_start_note(
                                                    &__dls_op_0,
                                                    &row,
                                                    ::core::stringify!(row),
                                                );
                                                let () = {
                                                    row = format!("{j}.{i} ");
                                                };
                                                __dls_acc.0 = row;
                                            },
                                            |__dls_a, __dls_b| (
                                                ::dls::__private::Operator::combine(
                                                    &__dls_op_0,
                                                    __dls_a.0,
                                                    __dls_b.0,
                                                ),
                                            ),
                                        );
                                    row = ::dls::__private::Operator::combine(
                                        &__dls_op_0,
                                        row,
                                        __dls_result_0,
                                    );
                                };
                            }
                            text = row;
                        };
                        __dls_acc.0 = text;
                    },
                    |__dls_a, __dls_b| (
                        ::dls::__private::Operator::combine(
                            &__dls_op_0,
                            __dls_a.0,
                            __dls_b.0,
                        ),
                    ),
                );
            text = ::dls::__private::Operator::combine(
                &__dls_op_0,
                text,
                __dls_result_0,
            );
        };
    }
    text
}
fn counted(n: u64, seen: &std::sync::Mutex<u64>) -> u64 {
    let mut total = 0_u64;
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
                .reduction("tree")
                .shared()
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
                            let () = {
                                *seen.lock().unwrap() += 1;
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

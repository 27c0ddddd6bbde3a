fn touch(n: u64) {
    {
        let () = {
            let () = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "runtime",
                )
                .run_iterates(
                    (),
                    0..n,
                    || (),
                    |__dls_iterates, __dls_acc| {
                        for __dls_index in __dls_iterates {
                            let i = __dls_index;
                            let () = {
                                work(i);
                            };
                        }
                    },
                    |__dls_a, __dls_b| (),
                );
        };
    }
}

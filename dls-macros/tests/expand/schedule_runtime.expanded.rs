fn touch(n: u64) {
    {
        let () = {
            let () = ::dls::__private::Loop::new(
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                    "runtime",
                )
                .run(
                    (),
                    0..n,
                    || (),
                    |__dls_index, __dls_acc| {
                        let i = __dls_index;
                        let () = {
                            work(i);
                        };
                    },
                    |__dls_a, __dls_b| (),
                );
        };
    }
}

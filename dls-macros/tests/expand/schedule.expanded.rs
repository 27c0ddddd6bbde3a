fn touch(n: u32) {
    {
        let () = {
            let () = ::dls::__private::Loop::new("rows", "gss,min=2")
                .run(
                    (),
                    1..=n,
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

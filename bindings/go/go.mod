module example.invalid/sense/bindings/go

go 1.19

module example.invalid/sense

go 1.19

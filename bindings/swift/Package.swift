// swift-tools-version:5.5
//
// Swift package for libsense: a system-library target (`CSense`) over the
// C header, found through pkg-config (`sense.pc`, installed by
// scripts/install.sh). NOT TESTED HERE: no Swift toolchain runs in this
// repository's CI; the C API it exposes is the one tested in C, C++ and Go.
import PackageDescription

let package = Package(
    name: "Sense",
    products: [
        .library(name: "CSense", targets: ["CSense"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSense",
            path: "Sources/CSense",
            pkgConfig: "sense",
            providers: []
        ),
    ]
)

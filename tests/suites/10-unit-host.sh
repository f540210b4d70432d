# Every unit test, natively with ASan and UBSan.
. tests/lib.sh
"$BUILD/host/anefw-tests" shared="$SHARED" data="$BUILD/testdata"

verilog-out/swift/swift.v

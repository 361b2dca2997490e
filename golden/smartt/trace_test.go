package smartt

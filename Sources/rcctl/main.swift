print("rcctl")

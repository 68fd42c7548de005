from ptxkit.cli import main

raise SystemExit(main())
